-- 0016_reference_updates_per_row.sql — key changes are checked by row triggers that fire only
-- when a key changes; ordinary updates of payslips and runs no longer call a trigger function.
--
-- 0013 checked UPDATEs of payslips, employees and payroll_runs with statement-level triggers over
-- transition tables, which PostgreSQL cannot restrict to key columns (`UPDATE OF` is not allowed
-- with transition tables), so every UPDATE statement captured its rows and called PL/pgSQL to find
-- that no key had changed. Batched recalculation updates a few payslips and one run row per run
-- of a batch, so it paid those calls per run: `payrun bench queue` measured 1,765–1,936
-- recalculation jobs/s at 2 threads against 1,796–2,092 before 0013 (session 3). Keys practically never change, so these checks
-- are now row-level triggers `AFTER UPDATE OF <key columns> … WHEN (<a key changed>)`: the WHEN
-- condition is evaluated without calling any function, and the function runs only for a re-keyed
-- row, where it does what 0013's statement check did for that row. INSERT into payslips (the
-- month-end's bulk path) and DELETE keep their statement-level checks.

DROP TRIGGER payslips_references_on_update ON payrun.payslips;
DROP TRIGGER payslip_references_on_update ON payrun.employees;
DROP TRIGGER payslip_references_on_update ON payrun.payroll_runs;

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

REVOKE ALL ON FUNCTION payrun.payslip_rekey_check_references(), payrun.refuse_referenced_rekey() FROM PUBLIC;

-- The statement-level insert check: nothing to do for a statement that inserted no row (an upsert
-- whose rows all existed, as a rerun's or a recalculation's).
CREATE OR REPLACE FUNCTION payrun.payslips_check_references() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    counts record;
    bad record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM changed_new) THEN
        RETURN NULL;
    END IF;
    -- One pass over the statement's rows (0013, 0015): lock what is referenced FOR KEY SHARE, by
    -- key, and count what was found against what is referenced; look up the missing row only
    -- when a count falls short, to name it.
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
