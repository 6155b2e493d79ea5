-- 0011_contracts_by_employee.sql — read a chunk's contracts by an index, not by a scan of all.
--
-- A month-end chunk reads the contracts of its employees by one employee-id range
-- (ChunkLoader: `employee_id BETWEEN a AND b`). contracts had no btree index on employee_id
-- (only its key (tenant_id, id) and the GiST exclusion index, which the planner does not pick
-- for that range), so every chunk scanned every contract of the store: 7.5 ms per 999-employee
-- chunk with 21,000 contracts, growing with the store (≈ 35 ms with 100,000), i.e. a month-end
-- cost quadratic in the store's size. With this index: 0.5 ms (bitmap scan of the range).
-- The table is small and changes rarely, so the extra index costs its writes little.
CREATE INDEX contracts_by_employee ON payrun.contracts (tenant_id, employee_id, effective_from);
