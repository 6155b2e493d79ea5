-- 0023_tenant_scope_guard.sql — a guard for statements that name their tenant by the transaction's
-- setting instead of a literal.
--
-- Why. Under row-level security (payrun_worker, production's role) a read such as
--     SELECT … FROM payrun.shifts x WHERE x.tenant_id = 4 AND …
-- also gets the policy's qual x.tenant_id = payrun.current_tenant_id(). PostgreSQL 15 puts both in
-- one equivalence class and plans `payrun.current_tenant_id() = 4` as a one-time filter: a Result
-- node above the scan that projects every row again. For the chunk jobs' COPYs of shifts,
-- contracts and absences (≈ 2.3 million rows per 100,000-employee month-end) that node cost
-- ≈ 0.2 server CPU-seconds (benchmarks/RESULTS.md, session 20). Written as
--     … WHERE x.tenant_id = payrun.current_tenant_id() AND …
-- the query's qual and the policy's are the same expression: one index condition, no Result node,
-- for every role. But such a query no longer names its tenant; with no tenant set it would read
-- nothing, silently.
--
-- What. payrun.tenant_scope_is(expected) returns true when the transaction's tenant
-- (payrun.tenant_id) is `expected` and raises otherwise (SQLSTATE 42501, as enqueue_recalculation
-- does), naming both. A statement that reads a tenant's rows by the setting first checks it, e.g.
-- in the WHERE clause of the chunk's employee COPY: a constant condition, evaluated once per
-- execution. STABLE: it reads only the setting.

CREATE FUNCTION payrun.tenant_scope_is(expected bigint) RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE
AS $$
BEGIN
    IF expected IS NULL OR payrun.current_tenant_id() IS DISTINCT FROM expected THEN
        RAISE EXCEPTION 'tenant scope: this statement reads tenant %, but the transaction''s tenant (payrun.tenant_id) is %',
                coalesce(expected::text, 'NULL'), coalesce(payrun.current_tenant_id()::text, 'unset')
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN true;
END
$$;

COMMENT ON FUNCTION payrun.tenant_scope_is(bigint) IS
    'true when the transaction''s tenant (payrun.tenant_id) is the argument; raises 42501 otherwise (0023)';
