-- 0019_payslip_employee_check_by_except.sql — the payslip insert check's usual statement without the
-- UNION of 0017 and without materializing the range's employee ids.
--
-- Why. Per 100,000-employee month-end the statement trigger payslips_references_on_insert cost
-- ≈ 0.19 server CPU-s (lead's profile, session 9) besides capturing its transition table. Counted in
-- instructions (callgrind of a single-user backend COPYing the 9,901 payslips of a 10,000-employee
-- store, 12 statements of ≤ 1,700 rows, each BEGIN; COPY; ROLLBACK; VACUUM; benchmarks/RESULTS.md,
-- session 9, helper server3): 0017's function cost ≈ 8.0k instructions per payslip row plus ≈ 1.43M
-- per statement. Its pass 1 (one scan of the transition table, four min/max, the distinct runs)
-- ≈ 1.5k of the 8.0k; the runs' lookups ≈ 0.2k; counting the range's employees into a materialized
-- CTE ≈ 2k; the UNION of the referenced and the range's ids (a hash aggregate over both, the CTE
-- read a second time) ≈ 3.8k per row and ≈ 0.95M per statement.
--
-- What changes. Pass 1 (the one scan of the transition table) also collects the employee ids into
-- an array. The usual month-end statement (one tenant, dense employee ids: 0017's "pass 2, one
-- tenant, dense ids") then checks its employees as: those ids EXCEPT the employee ids of the tenant
-- in [lowest, highest] referenced id must leave nothing. EXCEPT hashes the referenced ids and strikes
-- out those the range scan finds: the transition table is not read a second time, no CTE is
-- materialized, the range is read once and needs no count. Like the UNION, a set operation leaves
-- the planner no join order or method to get wrong in the generic plan (built once per session,
-- whatever the size of the first statement). Measured the same way (the dense path alone): ≈ 6.0k
-- instructions per row and ≈ 0.54M per statement; the whole COPY with CHECKs and this trigger
-- 114.0k → 110.9k instructions per row, and a one-row statement (a recalculation's insert)
-- 2.18M → 1.36M. At ≈ 1,700 rows per month-end statement ≈ −2.5k instructions per payslip row,
-- ≈ −250M per 100,000-employee month-end.
--
-- The same guarantees as 0017 (and 0013, 0015): the same paths in the same order (pass 1; the
-- advisory lock of 0015 at READ COMMITTED before any lookup; the runs locked FOR KEY SHARE by key;
-- the approved-run refusal first, with 0001's error; a missing reference named by the same follow-up
-- queries with 23503, row and column). Exactness: every row of the statement is of the one tenant and
-- its employee id lies in [lowest, highest], so a referenced id is an existing employee of the tenant
-- iff the range scan finds it; EXCEPT (a set difference, duplicates removed) leaves exactly the ids
-- that are not, so the statement is refused iff one is left (employee_id is NOT NULL: the array holds
-- no NULL). The two other paths compute the same counts as before and compare them as a difference
-- (referenced − found = 0), the same test.

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
