-- 0022_payslip_writer_role.sql — production workers COPY their payslips in, as the owner's path does.
--
-- Why. PostgreSQL refuses COPY FROM into a table with row-level security for a role subject to it,
-- so a production worker (a plain member of payrun_worker) inserted its payslips from column arrays
-- (PayslipWriter, since session 17; before, through a staging table). PostgreSQL 15 writes such an
-- INSERT … SELECT a row at a time (heap_insert, one WAL record per row), a COPY a page at a time
-- (heap_multi_insert): per 100,000-employee month-end the worker role cost 0.65–0.93 more server
-- CPU-seconds than the owner's direct COPY, and ×1.62–1.77 of the COPY floor against ×1.37–1.39
-- (benchmarks/RESULTS.md, sessions 17 and 18).
--
-- What. A NOLOGIN role payrun_payslip_writer with BYPASSRLS and one privilege: INSERT on
-- payrun.payslips. payrun_worker is a member, so a worker may `SET LOCAL ROLE payrun_payslip_writer`
-- around the one COPY of a first calculation and switch back right after it (PayslipWriter); every
-- other statement of the worker stays under row-level security. The role can read nothing, update
-- or delete nothing (so no upsert: replacements stay on the array path under the policy).
--
-- What keeps the tenant isolation of that COPY. The policy's WITH CHECK (tenant_id = the
-- transaction's tenant) does not apply to a BYPASSRLS role, so the insert trigger
-- payslips_references_on_insert (0013, 0019: one pass over the statement's transition table, which
-- already yields its lowest and highest tenant) now refuses, for rows written as
-- payrun_payslip_writer, any row whose tenant is not the transaction's, and any row when no tenant
-- is set — the same rows the policy refuses, with SQLSTATE 42501 as the policy's violation has.
-- The CHECK constraints, the unique key and the references to runs and employees apply as before.
--
-- Creating a BYPASSRLS role takes a superuser. Migrated by another role (the schema's owner without
-- SUPERUSER), this migration creates no role and says so (NOTICE): workers then keep the array
-- path, unchanged. A superuser can add the role later with the statements of the DO block below.
-- Roles are cluster-wide while migrations run per database: created only if missing, a concurrent
-- creation by another database's migration tolerated (as 0002).

DO $$
DECLARE
    is_superuser boolean := (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user);
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'payrun_payslip_writer') THEN
        IF is_superuser THEN
            BEGIN
                CREATE ROLE payrun_payslip_writer NOLOGIN BYPASSRLS;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL;  -- created meanwhile by a migration of another database of this cluster
            END;
        ELSE
            RAISE NOTICE 'payrun_payslip_writer not created: creating a BYPASSRLS role takes a superuser; workers insert payslips from column arrays (see 0022_payslip_writer_role.sql)';
        END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'payrun_payslip_writer') THEN
        GRANT USAGE ON SCHEMA payrun TO payrun_payslip_writer;
        GRANT INSERT ON payrun.payslips TO payrun_payslip_writer;
        BEGIN
            GRANT payrun_payslip_writer TO payrun_worker;
        EXCEPTION
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'payrun_payslip_writer not granted to payrun_worker (no privilege to grant it): workers insert payslips from column arrays';
            WHEN unique_violation OR duplicate_object THEN
                NULL;  -- granted meanwhile by a migration of another database of this cluster
        END;
    END IF;
END $$;

-- 0019's function with the tenant check above; otherwise unchanged.
CREATE OR REPLACE FUNCTION payrun.payslips_check_references() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    inserted record;
    counts record;
    bad record;
BEGIN
    -- Pass 1. tenant_id is NOT NULL: no tenant means no row (an upsert whose rows all existed).
    SELECT min(n.tenant_id) AS tenant_low, max(n.tenant_id) AS tenant_high,
           min(n.employee_id) AS employee_low, max(n.employee_id) AS employee_high, count(*) AS row_count,
           array_agg(DISTINCT n.run_id) AS run_ids, array_agg(n.employee_id) AS employee_ids
      INTO inserted FROM changed_new n;
    IF inserted.tenant_low IS NULL THEN
        RETURN NULL;
    END IF;
    -- 0022: rows COPYed as payrun_payslip_writer, which bypasses row-level security, must all be of the
    -- transaction's tenant, as the policy's WITH CHECK demands of every other writer (no tenant set:
    -- nothing may be written). current_user is this function's owner here; the role setting is the
    -- one the writer switched to.
    IF current_setting('role') = 'payrun_payslip_writer'
       AND (payrun.current_tenant_id() IS NULL
            OR inserted.tenant_low <> payrun.current_tenant_id() OR inserted.tenant_high <> payrun.current_tenant_id()) THEN
        RAISE EXCEPTION 'new row violates the tenant scope of table "payslips": tenant % written in a transaction of tenant %',
            CASE WHEN inserted.tenant_low = payrun.current_tenant_id() THEN inserted.tenant_high ELSE inserted.tenant_low END,
            coalesce(payrun.current_tenant_id()::text, 'none')
            USING ERRCODE = 'insufficient_privilege', TABLE = 'payslips', COLUMN = 'tenant_id';
    END IF;
    IF current_setting('transaction_isolation') = 'read committed' THEN
        -- The interlock with employee deletions (0015), before the lookups (their snapshot is taken after it).
        IF inserted.tenant_low = inserted.tenant_high THEN
            PERFORM pg_advisory_xact_lock_shared(1885434226, hashint8(inserted.tenant_low));
        ELSE
            PERFORM pg_advisory_xact_lock_shared(1885434226, hashint8(t.tenant_id))
               FROM (SELECT DISTINCT n.tenant_id FROM changed_new n ORDER BY 1) AS t;
        END IF;
        IF inserted.tenant_low = inserted.tenant_high
           AND inserted.employee_high::numeric - inserted.employee_low < 4 * inserted.row_count THEN
            -- Pass 2, one tenant, dense ids: runs locked FOR KEY SHARE by key; employees by one range scan.
            WITH runs AS MATERIALIZED (
                     SELECT l.id, l.status FROM unnest(inserted.run_ids) AS k(run_id),
                            LATERAL (SELECT r.id, r.status FROM payrun.payroll_runs r
                                      WHERE r.tenant_id = inserted.tenant_low AND r.id = k.run_id FOR KEY SHARE) AS l)
            SELECT (SELECT min(r.id) FROM runs r WHERE r.status = 'approved') AS approved_run,
                   (SELECT count(*) FROM runs) AS runs_found, cardinality(inserted.run_ids)::bigint AS runs_referenced,
                   -- the referenced ids that are no employee: those left after taking away the range's ids (0019)
                   (SELECT count(*) FROM (SELECT unnest(inserted.employee_ids)
                                          EXCEPT
                                          SELECT e.id FROM payrun.employees e
                                           WHERE e.tenant_id = inserted.tenant_low
                                             AND e.id BETWEEN inserted.employee_low AND inserted.employee_high) AS m)
                       AS employees_missing
              INTO counts;
        ELSE
            -- Pass 2, 0015's statement: employees counted per tenant with one `= ANY` index scan.
            WITH keys AS MATERIALIZED (SELECT n.tenant_id, n.run_id, n.employee_id FROM changed_new n),
                 run_keys AS MATERIALIZED (SELECT DISTINCT k.tenant_id, k.run_id FROM keys k),
                 employee_ids AS MATERIALIZED (SELECT k.tenant_id, array_agg(DISTINCT k.employee_id) AS ids FROM keys k GROUP BY k.tenant_id),
                 runs AS MATERIALIZED (SELECT l.id, l.status FROM run_keys k,
                                              LATERAL (SELECT r.id, r.status FROM payrun.payroll_runs r
                                                        WHERE r.tenant_id = k.tenant_id AND r.id = k.run_id FOR KEY SHARE) AS l)
            SELECT (SELECT min(r.id) FROM runs r WHERE r.status = 'approved') AS approved_run,
                   (SELECT count(*) FROM runs) AS runs_found, (SELECT count(*) FROM run_keys) AS runs_referenced,
                   (SELECT coalesce(sum(cardinality(t.ids)), 0)::bigint FROM employee_ids t)
                   - (SELECT coalesce(sum((SELECT count(*) FROM payrun.employees e WHERE e.tenant_id = t.tenant_id AND e.id = ANY (t.ids))), 0)::bigint
                        FROM employee_ids t) AS employees_missing
              INTO counts;
        END IF;
    ELSE
        -- 0013's statement: employees locked FOR KEY SHARE as well.
        WITH keys AS MATERIALIZED (SELECT n.tenant_id, n.run_id, n.employee_id FROM changed_new n),
             run_keys AS MATERIALIZED (SELECT DISTINCT k.tenant_id, k.run_id FROM keys k),
             employee_keys AS MATERIALIZED (SELECT DISTINCT k.tenant_id, k.employee_id FROM keys k),
             runs AS MATERIALIZED (SELECT l.id, l.status FROM run_keys k,
                                          LATERAL (SELECT r.id, r.status FROM payrun.payroll_runs r
                                                    WHERE r.tenant_id = k.tenant_id AND r.id = k.run_id FOR KEY SHARE) AS l),
             employees AS (SELECT l.id FROM employee_keys k,
                                  LATERAL (SELECT e.id FROM payrun.employees e
                                            WHERE e.tenant_id = k.tenant_id AND e.id = k.employee_id FOR KEY SHARE) AS l)
        SELECT (SELECT min(r.id) FROM runs r WHERE r.status = 'approved') AS approved_run,
               (SELECT count(*) FROM runs) AS runs_found, (SELECT count(*) FROM run_keys) AS runs_referenced,
               (SELECT count(*) FROM employee_keys) - (SELECT count(*) FROM employees) AS employees_missing
          INTO counts;
    END IF;
    -- 0001's approved-run check (it ran first, as the trigger payslips_locked_on_insert).
    IF counts.approved_run IS NOT NULL THEN
        RAISE EXCEPTION 'payroll run % is approved (locked): its payslips cannot be changed', counts.approved_run
            USING ERRCODE = 'check_violation', HINT = 'record the change in payrun.pending_corrections';
    END IF;
    IF counts.runs_found = counts.runs_referenced AND counts.employees_missing = 0 THEN
        RETURN NULL;
    END IF;
    SELECT n.tenant_id, n.run_id, n.employee_id INTO bad FROM changed_new n
     WHERE NOT EXISTS (SELECT 1 FROM payrun.payroll_runs r WHERE r.tenant_id = n.tenant_id AND r.id = n.run_id)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'payslip (tenant %, run %, employee %): payroll run % of tenant % does not exist',
            bad.tenant_id, bad.run_id, bad.employee_id, bad.run_id, bad.tenant_id
            USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips', COLUMN = 'run_id';
    END IF;
    SELECT n.tenant_id, n.run_id, n.employee_id INTO bad FROM changed_new n
     WHERE NOT EXISTS (SELECT 1 FROM payrun.employees e WHERE e.tenant_id = n.tenant_id AND e.id = n.employee_id)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'payslip (tenant %, run %, employee %): employee % of tenant % does not exist',
            bad.tenant_id, bad.run_id, bad.employee_id, bad.employee_id, bad.tenant_id
            USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips', COLUMN = 'employee_id';
    END IF;
    -- Found by the snapshot of these statements but not by the locking read: deleted meanwhile.
    RAISE EXCEPTION 'payslips of tenant %: a referenced run or employee was deleted concurrently', inserted.tenant_low
        USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips';
END $$;
