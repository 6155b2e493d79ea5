-- 0012_staging_copy_for_workers.sql — workers that are subject to row-level security can stage payslips.
--
-- PostgreSQL refuses COPY FROM into a table with row-level security for a role subject to it
-- ("COPY FROM not supported with row-level security"). RLS was FORCEd on payrun.payslip_staging
-- (0002), so a worker logging in as a plain member of payrun_worker (no BYPASSRLS, not the owner's
-- superuser) could not store a single chunk: only the owner with BYPASSRLS or a superuser could.
--
-- payslip_staging is the workers' scratch table, not tenant data at rest:
-- - only payrun_worker has privileges on it (payrun_backend has none, 0002);
-- - its rows live inside one transaction: the chunk job COPYs them in under its lease token, moves
--   them into payslips and deletes them before it commits, so no other session ever sees them;
-- - the move goes into payrun.payslips, whose policy (WITH CHECK tenant_id = the transaction's
--   tenant) still refuses any row of another tenant, and the move also selects only rows of the
--   transaction's tenant (PayslipWriter).
-- So row-level security is switched off on this one table. Every other tenant table keeps it
-- FORCEd. The direct COPY into payslips (first calculation, PayslipWriter) is used only where row
-- security is not active for the writing role (`row_security_active`); a worker subject to it takes
-- the staging path, with the same stored result.
DROP POLICY IF EXISTS tenant_isolation ON payrun.payslip_staging;
ALTER TABLE payrun.payslip_staging NO FORCE ROW LEVEL SECURITY;
ALTER TABLE payrun.payslip_staging DISABLE ROW LEVEL SECURITY;
