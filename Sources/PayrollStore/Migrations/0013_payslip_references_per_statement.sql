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
-- * A payslip row inserted must reference an existing run and employee of its tenant:
--   payrun.payslips_check_references() (AFTER INSERT, per statement) locks the referenced rows
--   FOR KEY SHARE — as the built-in check did, so a concurrent DELETE of the employee or run
--   waits for this transaction, and a REPEATABLE READ transaction whose referenced row was
--   deleted meanwhile fails with a serialization error — and then refuses the statement if any
--   reference is missing (SQLSTATE 23503 foreign_key_violation, naming the row and column).
--   Every lookup is a LATERAL subquery on the key, so it is an index scan per distinct key
--   whatever the size of payroll_runs (a plain join had been planned as a hash join over a scan
--   of every run, per chunk, at 1,000,000 employees).
-- * A re-keyed payslip is checked the same way for its one row.
-- * A run or employee that a payslip references cannot be deleted, re-keyed or truncated away:
--   payrun.refuse_referenced_removal() (AFTER DELETE, per statement),
--   payrun.refuse_referenced_rekey() and payrun.refuse_referenced_truncate() raise 23503.
-- * Key changes are checked by row triggers `AFTER UPDATE OF <keys> … WHEN (<a key changed>)`:
--   transition tables cannot be combined with `UPDATE OF`, and a statement trigger would call
--   PL/pgSQL on every UPDATE (a recalculation's upsert, run totals) only to find no key changed;
--   the WHEN condition is evaluated without calling any function.
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
    IF NOT EXISTS (SELECT 1 FROM changed_new) THEN
        RETURN NULL;
    END IF;
    -- One pass over the statement's rows (a chunk's transition table is megabytes of payslips and
    -- may sit in a temporary file): lock what is referenced FOR KEY SHARE, by key, and count what
    -- was found against what is referenced; look up the missing row only when a count falls
    -- short, to name it. (An upsert whose rows all existed inserted nothing: done at once.)
    WITH keys AS MATERIALIZED (SELECT n.tenant_id, n.run_id, n.employee_id FROM changed_new n),
         run_keys AS MATERIALIZED (SELECT DISTINCT k.tenant_id, k.run_id FROM keys k),
         employee_keys AS MATERIALIZED (SELECT DISTINCT k.tenant_id, k.employee_id FROM keys k),
         runs AS (SELECT l.id FROM run_keys k,
                         LATERAL (SELECT r.id FROM payrun.payroll_runs r
                                   WHERE r.tenant_id = k.tenant_id AND r.id = k.run_id FOR KEY SHARE) AS l),
         employees AS (SELECT l.id FROM employee_keys k,
                              LATERAL (SELECT e.id FROM payrun.employees e
                                        WHERE e.tenant_id = k.tenant_id AND e.id = k.employee_id FOR KEY SHARE) AS l)
    SELECT (SELECT count(*) FROM runs) AS runs_found, (SELECT count(*) FROM run_keys) AS runs_referenced,
           (SELECT count(*) FROM employees) AS employees_found, (SELECT count(*) FROM employee_keys) AS employees_referenced
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
END $$;

CREATE TRIGGER payslips_references_on_insert AFTER INSERT ON payrun.payslips
    REFERENCING NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION payrun.payslips_check_references();

-- A re-keyed payslip must reference an existing run and employee (locked FOR KEY SHARE).
CREATE FUNCTION payrun.payslip_rekey_check_references() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM 1 FROM payrun.payroll_runs r WHERE r.tenant_id = NEW.tenant_id AND r.id = NEW.run_id FOR KEY SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'payslip (tenant %, run %, employee %): payroll run % of tenant % does not exist',
            NEW.tenant_id, NEW.run_id, NEW.employee_id, NEW.run_id, NEW.tenant_id
            USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips', COLUMN = 'run_id';
    END IF;
    PERFORM 1 FROM payrun.employees e WHERE e.tenant_id = NEW.tenant_id AND e.id = NEW.employee_id FOR KEY SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'payslip (tenant %, run %, employee %): employee % of tenant % does not exist',
            NEW.tenant_id, NEW.run_id, NEW.employee_id, NEW.employee_id, NEW.tenant_id
            USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips', COLUMN = 'employee_id';
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER payslips_references_on_update AFTER UPDATE OF tenant_id, run_id, employee_id ON payrun.payslips
    FOR EACH ROW
    WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id OR OLD.run_id IS DISTINCT FROM NEW.run_id
          OR OLD.employee_id IS DISTINCT FROM NEW.employee_id)
    EXECUTE FUNCTION payrun.payslip_rekey_check_references();

-- The referenced side. TG_ARGV[0] is the payslips column that holds the key ('run_id' or 'employee_id').
CREATE FUNCTION payrun.refuse_referenced_removal() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    bad record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM changed_old) THEN
        RETURN NULL;
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'payrun.%: rows can be deleted or re-keyed only at READ COMMITTED (a % snapshot could miss payslips that reference them)',
            TG_TABLE_NAME, upper(current_setting('transaction_isolation'))
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'run the statement in a READ COMMITTED transaction (migration 0013 explains why)';
    END IF;
    EXECUTE format($q$
        SELECT o.tenant_id, o.id, p.run_id, p.employee_id FROM changed_old o
          JOIN payrun.payslips p ON p.tenant_id = o.tenant_id AND p.%1$I = o.id
         LIMIT 1 $q$, TG_ARGV[0]) INTO bad;
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

-- A referenced run or employee cannot change its key. TG_ARGV[0]: the payslips column holding it.
CREATE FUNCTION payrun.refuse_referenced_rekey() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    bad record;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'payrun.%: rows can be deleted or re-keyed only at READ COMMITTED (a % snapshot could miss payslips that reference them)',
            TG_TABLE_NAME, upper(current_setting('transaction_isolation'))
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'run the statement in a READ COMMITTED transaction (migration 0013 explains why)';
    END IF;
    EXECUTE format('SELECT p.run_id, p.employee_id FROM payrun.payslips p WHERE p.tenant_id = $1 AND p.%I = $2 LIMIT 1', TG_ARGV[0])
        INTO bad USING OLD.tenant_id, OLD.id;
    IF bad.run_id IS NOT NULL THEN
        RAISE EXCEPTION 'payrun.%: row (tenant %, id %) is still referenced by the payslip of run % for employee %',
            TG_TABLE_NAME, OLD.tenant_id, OLD.id, bad.run_id, bad.employee_id
            USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips';
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER payslip_references_on_update AFTER UPDATE OF tenant_id, id ON payrun.employees
    FOR EACH ROW WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id OR OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION payrun.refuse_referenced_rekey('employee_id');
CREATE TRIGGER payslip_references_on_update AFTER UPDATE OF tenant_id, id ON payrun.payroll_runs
    FOR EACH ROW WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id OR OLD.id IS DISTINCT FROM NEW.id)
    EXECUTE FUNCTION payrun.refuse_referenced_rekey('run_id');

CREATE TRIGGER payslip_references_on_delete AFTER DELETE ON payrun.employees
    REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_removal('employee_id');
CREATE TRIGGER payslip_references_on_truncate AFTER TRUNCATE ON payrun.employees
    FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_truncate();
CREATE TRIGGER payslip_references_on_delete AFTER DELETE ON payrun.payroll_runs
    REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_removal('run_id');
CREATE TRIGGER payslip_references_on_truncate AFTER TRUNCATE ON payrun.payroll_runs
    FOR EACH STATEMENT EXECUTE FUNCTION payrun.refuse_referenced_truncate();

REVOKE ALL ON FUNCTION payrun.payslips_check_references(), payrun.payslip_rekey_check_references(),
    payrun.refuse_referenced_removal(), payrun.refuse_referenced_rekey(), payrun.refuse_referenced_truncate() FROM PUBLIC;

-- 0001's approved-run check, with the same key lookups (its plain join was the hash join over
-- every run described above).
CREATE OR REPLACE FUNCTION payrun.refuse_payslips_of_approved_runs() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    locked_run bigint;
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT r.id INTO locked_run
          FROM (SELECT DISTINCT n.tenant_id, n.run_id FROM changed_new n) AS k,
               LATERAL (SELECT r.id FROM payrun.payroll_runs r
                         WHERE r.tenant_id = k.tenant_id AND r.id = k.run_id AND r.status = 'approved') AS r
         LIMIT 1;
    END IF;
    IF locked_run IS NULL AND TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT r.id INTO locked_run
          FROM (SELECT DISTINCT o.tenant_id, o.run_id FROM changed_old o) AS k,
               LATERAL (SELECT r.id FROM payrun.payroll_runs r
                         WHERE r.tenant_id = k.tenant_id AND r.id = k.run_id AND r.status = 'approved') AS r
         LIMIT 1;
    END IF;
    IF locked_run IS NOT NULL THEN
        RAISE EXCEPTION 'payroll run % is approved (locked): its payslips cannot be changed', locked_run
            USING ERRCODE = 'check_violation', HINT = 'record the change in payrun.pending_corrections';
    END IF;
    RETURN NULL;
END $$;

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
