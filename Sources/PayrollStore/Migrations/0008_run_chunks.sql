-- 0008_run_chunks.sql — what the workers need to plan, finish and schedule payroll runs.
--
-- * payroll_runs.warnings_count: warnings over the run's payslips, set when the run is calculated
--   (errors are employees_failed).
-- * workplaces.month_end_day: the day of the month AFTER a period on which the worker's periodic
--   scheduler creates that month's run (NULL = only `payrun schedule month-end` creates runs).
-- * run_chunks: one row per planned chunk of a run: the employee-id range it covers, and once its
--   job has committed, its input digest and counts. The last chunk to commit finalizes the run;
--   chunk jobs lock the run row first, so "count finished chunks, then finalize" is race-free.

ALTER TABLE payrun.payroll_runs
    ADD COLUMN warnings_count integer NOT NULL DEFAULT 0 CHECK (warnings_count >= 0);

ALTER TABLE payrun.workplaces
    ADD COLUMN month_end_day smallint CHECK (month_end_day BETWEEN 1 AND 28);

CREATE TABLE payrun.run_chunks (
    tenant_id          bigint NOT NULL,
    run_id             bigint NOT NULL,
    -- 0, 1, … in employee-id order; the run's input digest hashes the chunk digests in this order.
    chunk_no           integer NOT NULL CHECK (chunk_no >= 0),
    -- Inclusive range of employee ids this chunk computes.
    employee_id_from   bigint NOT NULL,
    employee_id_to     bigint NOT NULL,
    employees_planned  integer NOT NULL CHECK (employees_planned >= 0),
    -- Set by the chunk job's transaction.
    input_digest       bytea CHECK (octet_length(input_digest) = 32),
    employees_done     integer CHECK (employees_done >= 0),
    employees_failed   integer CHECK (employees_failed >= 0),
    finished_at        timestamptz,
    PRIMARY KEY (tenant_id, run_id, chunk_no),
    FOREIGN KEY (tenant_id, run_id) REFERENCES payrun.payroll_runs (tenant_id, id),
    CONSTRAINT run_chunks_range_order CHECK (employee_id_to >= employee_id_from),
    CONSTRAINT run_chunks_finished_has_digest CHECK ((finished_at IS NULL) = (input_digest IS NULL))
);

GRANT SELECT ON payrun.run_chunks TO payrun_backend;
GRANT SELECT, INSERT, UPDATE, DELETE ON payrun.run_chunks TO payrun_worker;

ALTER TABLE payrun.run_chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE payrun.run_chunks FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON payrun.run_chunks
    USING (tenant_id = payrun.current_tenant_id())
    WITH CHECK (tenant_id = payrun.current_tenant_id());
