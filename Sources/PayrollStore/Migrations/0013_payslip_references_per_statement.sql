-- 0013_payslip_references_per_statement.sql — payslips' references checked once per statement,
-- and their line columns compressed with lz4.
--
-- Why. A month-end writes one payslip per employee, a chunk of up to 2,000 by one COPY. The two
-- foreign keys of payslips (to payroll_runs and to employees) ran their checks per row: one SPI
-- query each, with executor start-up, an index scan and a FOR KEY SHARE lock per row. Profiled
-- at 100,000 employees (session 3, benchmarks/RESULTS.md) they were ≈ 10 % of all CPU of the
-- month-end (server and worker together on 2 cores), while the row locks themselves
-- (heap_lock_tuple) were 0.45 %. Here the same checks run once per statement, over the
-- statement's transition table.
--
-- What stays the same (the guarantees of the foreign keys):
-- * A payslip row inserted or re-keyed must reference an existing run and employee of its tenant:
--   payrun.payslips_check_references() locks the referenced rows FOR KEY SHARE — as the built-in
--   check did, so a concurrent DELETE of the employee or run waits for this transaction, and a
--   REPEATABLE READ transaction whose referenced row was deleted meanwhile fails with a
--   serialization error — and then refuses the statement if any reference is missing
--   (SQLSTATE 23503 foreign_key_violation, naming the row).
-- * A run or employee that a payslip references cannot be deleted, re-keyed or truncated away:
--   payrun.refuse_referenced_removal() (AFTER DELETE / UPDATE statement triggers) and
--   payrun.refuse_referenced_truncate() (AFTER TRUNCATE) raise 23503.
--
-- One difference, on purpose: DELETE (or a key change) of employees or payroll_runs must run at
-- READ COMMITTED. The built-in check uses a special cross-check snapshot that a trigger cannot
-- use; a REPEATABLE READ deleter's snapshot could miss a payslip that a concurrent month-end
-- committed while the deleter waited for its row lock. At READ COMMITTED every statement of the
-- trigger takes a fresh snapshot after the delete got its row locks, so it sees such payslips.
-- payrun never deletes employees or runs (they are records to keep, 근로기준법 §42); the
-- triggers refuse a deletion at another isolation level (SQLSTATE 0A000) instead of risking an
-- orphan.
--
-- Row-level security: the functions are SECURITY DEFINER (locking FOR KEY SHARE needs UPDATE
-- privilege, which payrun_worker does not have on employees), and the owner is subject to the
-- FORCEd policies like everyone: it sees the rows of the transaction's tenant, which is the
-- tenant of every row the statement touched (the policies of the touched table admitted them).
-- The TRUNCATE check runs with row_security off, so an owner without BYPASSRLS gets an error
-- (refused) rather than a check that sees nothing.
--
-- pending_corrections keeps its built-in foreign keys: it is written a row at a time.

ALTER TABLE payrun.payslips
    DROP CONSTRAINT payslips_tenant_id_run_id_fkey,
    DROP CONSTRAINT payslips_tenant_id_employee_id_fkey;

CREATE FUNCTION payrun.payslips_check_references() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    counts record;
    bad record;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        -- An update that keeps every row's key (the upsert of a rerun) references nothing new.
        IF NOT EXISTS (SELECT 1 FROM changed_new n
                        WHERE NOT EXISTS (SELECT 1 FROM changed_old o WHERE o.tenant_id = n.tenant_id
                                             AND o.run_id = n.run_id AND o.employee_id = n.employee_id)) THEN
            RETURN NULL;
        END IF;
    END IF;
    -- One pass over the statement's rows (a chunk's transition table is megabytes of payslips and
    -- may sit in a temporary file): lock what is referenced, as the built-in check did
    -- (key-share: other key-share locks and non-key updates go on; DELETE and key updates wait
    -- for this transaction), and count what was found against what is referenced. Only when a
    -- count falls short is the missing row looked up, to name it.
    WITH keys AS MATERIALIZED (SELECT n.tenant_id, n.run_id, n.employee_id FROM changed_new n),
         runs AS (SELECT r.tenant_id, r.id FROM payrun.payroll_runs r
                   WHERE (r.tenant_id, r.id) IN (SELECT k.tenant_id, k.run_id FROM keys k) FOR KEY SHARE OF r),
         employees AS (SELECT e.tenant_id, e.id FROM payrun.employees e
                        WHERE (e.tenant_id, e.id) IN (SELECT k.tenant_id, k.employee_id FROM keys k) FOR KEY SHARE OF e)
    SELECT (SELECT count(*) FROM runs) AS runs_found,
           (SELECT count(*) FROM (SELECT DISTINCT k.tenant_id, k.run_id FROM keys k) AS d) AS runs_referenced,
           (SELECT count(*) FROM employees) AS employees_found,
           (SELECT count(*) FROM (SELECT DISTINCT k.tenant_id, k.employee_id FROM keys k) AS d) AS employees_referenced
      INTO counts;
    IF counts.runs_found = counts.runs_referenced AND counts.employees_found = counts.employees_referenced THEN
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
    RAISE EXCEPTION 'payslips of tenant %: a referenced run or employee was deleted concurrently', (SELECT min(n.tenant_id) FROM changed_new n)
        USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips';
    RETURN NULL;
END $$;

-- (Transition tables cannot be combined with UPDATE OF column lists, so the update triggers fire
-- on every UPDATE statement and compare keys themselves.)
CREATE TRIGGER payslips_references_on_insert AFTER INSERT ON payrun.payslips
    REFERENCING NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION payrun.payslips_check_references();
CREATE TRIGGER payslips_references_on_update AFTER UPDATE ON payrun.payslips
    REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION payrun.payslips_check_references();

-- The referenced side: TG_ARGV[0] is the payslips column that holds the key ('run_id' or 'employee_id').
CREATE FUNCTION payrun.refuse_referenced_removal() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    bad record;
BEGIN
    -- The keys that no longer exist after the statement: every deleted row, or the updated rows
    -- whose (tenant_id, id) changed (status and totals updates of runs keep their key: done).
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT 1 FROM changed_old) THEN
            RETURN NULL;
        END IF;
    ELSIF NOT EXISTS (SELECT 1 FROM changed_old o
                       WHERE NOT EXISTS (SELECT 1 FROM changed_new n WHERE n.tenant_id = o.tenant_id AND n.id = o.id)) THEN
        RETURN NULL;
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'payrun.%: rows can be deleted or re-keyed only at READ COMMITTED (a % snapshot could miss payslips that reference them)',
            TG_TABLE_NAME, upper(current_setting('transaction_isolation'))
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'run the statement in a READ COMMITTED transaction (migration 0013 explains why)';
    END IF;
    IF TG_OP = 'DELETE' THEN
        EXECUTE format($q$
            SELECT o.tenant_id, o.id, p.run_id, p.employee_id FROM changed_old o
              JOIN payrun.payslips p ON p.tenant_id = o.tenant_id AND p.%1$I = o.id
             LIMIT 1 $q$, TG_ARGV[0]) INTO bad;
    ELSE
        EXECUTE format($q$
            SELECT o.tenant_id, o.id, p.run_id, p.employee_id FROM changed_old o
              JOIN payrun.payslips p ON p.tenant_id = o.tenant_id AND p.%1$I = o.id
             WHERE NOT EXISTS (SELECT 1 FROM changed_new n WHERE n.tenant_id = o.tenant_id AND n.id = o.id)
             LIMIT 1 $q$, TG_ARGV[0]) INTO bad;
    END IF;
    IF bad.tenant_id IS NOT NULL THEN
        RAISE EXCEPTION 'payrun.%: row (tenant %, id %) is still referenced by the payslip of run % for employee %',
            TG_TABLE_NAME, bad.tenant_id, bad.id, bad.run_id, bad.employee_id
            USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips';
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION payrun.refuse_referenced_truncate() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET row_security = off AS $$
BEGIN
    -- Fired after every table of the TRUNCATE command is emptied: truncating payslips together
    -- with the referenced table is allowed, as it was with the foreign keys.
    IF EXISTS (SELECT 1 FROM payrun.payslips) THEN
        RAISE EXCEPTION 'payrun.%: cannot truncate a table that payrun.payslips references (payslips is not empty)', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', HINT = 'truncate payrun.payslips in the same command';
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER payslip_references_on_delete AFTER DELETE ON payrun.employees
    REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_removal('employee_id');
CREATE TRIGGER payslip_references_on_update AFTER UPDATE ON payrun.employees
    REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_removal('employee_id');
CREATE TRIGGER payslip_references_on_truncate AFTER TRUNCATE ON payrun.employees
    FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_truncate();
CREATE TRIGGER payslip_references_on_delete AFTER DELETE ON payrun.payroll_runs
    REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_removal('run_id');
CREATE TRIGGER payslip_references_on_update AFTER UPDATE ON payrun.payroll_runs
    REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_removal('run_id');
CREATE TRIGGER payslip_references_on_truncate AFTER TRUNCATE ON payrun.payroll_runs
    FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_truncate();

REVOKE ALL ON FUNCTION payrun.payslips_check_references(), payrun.refuse_referenced_removal(),
    payrun.refuse_referenced_truncate() FROM PUBLIC;

-- lz4 instead of the default pglz for the payslip documents that exceed the inline threshold
-- (≈ 2 kB; rows with many lines): pglz_compress was ≈ 3 % of the month-end's CPU at 100,000
-- employees. Applies to rows written from now on. A server built without lz4 keeps pglz.
DO $$
BEGIN
    ALTER TABLE payrun.payslips
        ALTER COLUMN earnings SET COMPRESSION lz4, ALTER COLUMN deductions SET COMPRESSION lz4,
        ALTER COLUMN warnings SET COMPRESSION lz4, ALTER COLUMN error SET COMPRESSION lz4;
    ALTER TABLE payrun.payslip_staging
        ALTER COLUMN earnings SET COMPRESSION lz4, ALTER COLUMN deductions SET COMPRESSION lz4,
        ALTER COLUMN warnings SET COMPRESSION lz4, ALTER COLUMN error SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not supported by this server: payslip columns keep pglz';
END $$;
