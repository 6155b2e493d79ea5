-- 0002_rls_roles.sql — roles, grants and row-level security.
--
-- Tenant isolation: every table holding a tenant's data has row-level security ENABLEd and
-- FORCEd (so that even the tables' owner is subject to it; only superusers and BYPASSRLS roles
-- are not), with one policy for every role:
--     tenant_id = payrun.current_tenant_id()
-- where the tenant is set per transaction by
--     SELECT set_config('payrun.tenant_id', '<tenant id>', true);
-- With no tenant set, the policy compares with NULL: nothing is visible and nothing can be written.
-- Foreign keys are composite (tenant_id, …) (0001), because foreign-key checks bypass RLS.
--
-- Roles (NOLOGIN group roles; grant them to login roles):
--   payrun_backend  the employer's application: reads and writes its inputs (workplaces,
--                   employees, contracts, shifts, absences, company holidays), reads runs, payslips,
--                   corrections and its jobs, and enqueues recalculations (0004).
--   payrun_worker   payrun workers: read inputs, write payroll runs, payslips, corrections and jobs.
--                   Workers claim jobs of every tenant, so on `jobs` (and for reading the tenant
--                   directory on `tenants`) they have an extra policy that sees every row; all other
--                   tables stay scoped to the tenant of the transaction, also for workers.
-- Operator commands that span tenants (scheduling month-end for all tenants) run as the schema
-- owner; in production give that role BYPASSRLS or run them as a superuser.
-- Roles are cluster-wide while migrations run per database, so they are created only if missing
-- (and a concurrent creation by a migration of another database is tolerated).

DO $$
DECLARE
    role_name text;
BEGIN
    FOREACH role_name IN ARRAY ARRAY['payrun_worker', 'payrun_backend'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = role_name) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', role_name);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL;  -- created meanwhile by a migration of another database of this cluster
            END;
        END IF;
    END LOOP;
END $$;

GRANT USAGE ON SCHEMA payrun TO payrun_worker, payrun_backend;

-- National calendar: public data.
GRANT SELECT ON payrun.holidays TO payrun_worker, payrun_backend;

-- Backend.
GRANT SELECT ON payrun.tenants TO payrun_backend;
GRANT SELECT, INSERT, UPDATE, DELETE ON
    payrun.workplaces, payrun.workplace_holidays, payrun.employees, payrun.contracts,
    payrun.shifts, payrun.absences
    TO payrun_backend;
GRANT SELECT ON payrun.payroll_runs, payrun.payslips, payrun.pending_corrections, payrun.jobs
    TO payrun_backend;

-- Worker.
GRANT SELECT ON
    payrun.tenants, payrun.workplaces, payrun.workplace_holidays, payrun.employees,
    payrun.contracts, payrun.shifts, payrun.absences
    TO payrun_worker;
GRANT SELECT, INSERT, UPDATE, DELETE ON
    payrun.payroll_runs, payrun.payslips, payrun.payslip_staging, payrun.pending_corrections,
    payrun.jobs
    TO payrun_worker;

-- Identity columns draw from sequences.
GRANT USAGE ON ALL SEQUENCES IN SCHEMA payrun TO payrun_worker, payrun_backend;

-- Row-level security.
ALTER TABLE payrun.tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE payrun.tenants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON payrun.tenants
    USING (id = payrun.current_tenant_id())
    WITH CHECK (id = payrun.current_tenant_id());
CREATE POLICY worker_reads_tenant_directory ON payrun.tenants FOR SELECT TO payrun_worker
    USING (true);

DO $$
DECLARE
    table_name text;
BEGIN
    FOREACH table_name IN ARRAY ARRAY[
        'workplaces', 'workplace_holidays', 'employees', 'contracts', 'shifts', 'absences',
        'payroll_runs', 'payslips', 'payslip_staging', 'pending_corrections', 'jobs'
    ] LOOP
        EXECUTE format('ALTER TABLE payrun.%I ENABLE ROW LEVEL SECURITY', table_name);
        EXECUTE format('ALTER TABLE payrun.%I FORCE ROW LEVEL SECURITY', table_name);
        EXECUTE format(
            'CREATE POLICY tenant_isolation ON payrun.%I
                 USING (tenant_id = payrun.current_tenant_id())
                 WITH CHECK (tenant_id = payrun.current_tenant_id())',
            table_name);
    END LOOP;
END $$;

-- Workers claim, heartbeat, complete and rescue jobs of every tenant (and tenant-less
-- maintenance jobs); the effects of a job are written under that job's tenant setting.
CREATE POLICY worker_claims_any_job ON payrun.jobs TO payrun_worker
    USING (true)
    WITH CHECK (true);
