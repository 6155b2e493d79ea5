-- 0017_payslip_insert_check_one_pass.sql — one statement trigger checks inserted payslips (approved run
-- and references), with fewer passes over the transition table and no per-id index descents; the
-- rule_set CHECK without a regex.
--
-- Why. Measured on a seeded 10,000-employee store (benchmarks/payslip-insert-cpu.sh: the month-end's
-- 9,901 payslip rows as binary COPY chunks of ≤ 1,500 rows of one tenant, each chunk COPYed into
-- every compared table in turn, BEGIN; COPY; ROLLBACK, server CPU of the COPY statement from
-- /proc/<backend>/schedstat), a table like payrun.payslips with 0015's triggers cost 24.4 µs of
-- server CPU per row against 18.1 µs for a LIKE copy without triggers or CHECKs (the bench floor's
-- table). perf (cpu-clock) put the difference in the two AFTER INSERT statement triggers (≈ 2.6 µs),
-- capturing the transition table (≈ 1.5 µs: every row copied once into a tuplestore, shared by both
-- triggers) and the CHECKs (≈ 2.4 µs, 1.4 of them the rule_set regex). Per chunk the triggers read
-- the transition table four times (approved-run check; EXISTS; DISTINCT tenants for the advisory
-- lock; the keys for the lookups), sorted the employee ids for array_agg(DISTINCT) and counted them
-- with one B-tree descent per id (`id = ANY (…)`, ≈ 1.5 µs per id). With this migration: 23.5 µs.
--
-- What changes (the guarantees stay those of 0001, 0013 and 0015):
-- * payslips_locked_on_insert (0001's approved-run check on INSERT) is dropped; the insert trigger
--   payslips_references_on_insert does that check too, from the same locking read of the runs
--   (FOR KEY SHARE, as before), first, with 0001's error (check_violation, "payroll run N is
--   approved (locked)…"), so a statement that both hits an approved run and misses a reference
--   still reports the approved run. UPDATE and DELETE keep payslips_locked_on_update/_on_delete.
-- * Pass 1 (one scan of the transition table): the tenants (min/max), the employee-id span and
--   row count, and the distinct runs. Then the per-tenant advisory lock of 0015 (READ COMMITTED),
--   then pass 2 with a fresh snapshot, as before.
-- * The usual month-end statement (one tenant, employee ids dense: max − min + 1 ≤ 4 × rows) counts
--   employees by one index range scan over [min, max] of that tenant: every distinct referenced id
--   exists iff the UNION of the referenced ids and the employee ids of the range has as many values
--   as the range (all referenced ids lie in it). The range holds at most 4 × rows employees, so
--   the cost is bounded; a UNION has no join order or method for the planner to get wrong.
--   Otherwise (several tenants, sparse ids, e.g. a few recalculations) 0015's per-tenant `= ANY`
--   count runs unchanged; at other isolation levels 0013's FOR KEY SHARE locks of every employee.
-- * A missing reference is still named by the same follow-up queries (23503, row and column).
-- * `plan_cache_mode = force_generic_plan` for the function's statements: pass 2 takes its keys as
--   PL/pgSQL variables (parameters), and custom plans replanned the whole statement on every call
--   (≈ 0.2 ms: a single-row insert cost 713 µs against 513 µs with the generic plan, 621 µs with
--   0015's triggers; per row of a 1,500-row COPY chunk 24.0 → 23.4 µs). Its plans are key lookups
--   and one key-range scan whatever the values; they are rebuilt when payroll_runs or employees
--   are analyzed.

DROP TRIGGER payslips_locked_on_insert ON payrun.payslips;

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
           array_agg(DISTINCT n.run_id) AS run_ids
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
                                      WHERE r.tenant_id = inserted.tenant_low AND r.id = k.run_id FOR KEY SHARE) AS l),
                 in_range AS MATERIALIZED (
                     SELECT e.id FROM payrun.employees e
                      WHERE e.tenant_id = inserted.tenant_low AND e.id BETWEEN inserted.employee_low AND inserted.employee_high)
            SELECT (SELECT min(r.id) FROM runs r WHERE r.status = 'approved') AS approved_run,
                   (SELECT count(*) FROM runs) AS runs_found, cardinality(inserted.run_ids)::bigint AS runs_referenced,
                   -- every referenced id is an employee iff adding them to the range's ids adds no value
                   (SELECT count(*) FROM in_range) AS employees_found,
                   (SELECT count(*) FROM (SELECT n.employee_id FROM changed_new n UNION SELECT e.id FROM in_range e) AS u)
                       AS employees_referenced
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
                   (SELECT coalesce(sum((SELECT count(*) FROM payrun.employees e WHERE e.tenant_id = t.tenant_id AND e.id = ANY (t.ids))), 0)::bigint
                      FROM employee_ids t) AS employees_found,
                   (SELECT coalesce(sum(cardinality(t.ids)), 0)::bigint FROM employee_ids t) AS employees_referenced
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
               (SELECT count(*) FROM employees) AS employees_found, (SELECT count(*) FROM employee_keys) AS employees_referenced
          INTO counts;
    END IF;
    -- 0001's approved-run check (it ran first, as the trigger payslips_locked_on_insert).
    IF counts.approved_run IS NOT NULL THEN
        RAISE EXCEPTION 'payroll run % is approved (locked): its payslips cannot be changed', counts.approved_run
            USING ERRCODE = 'check_violation', HINT = 'record the change in payrun.pending_corrections';
    END IF;
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
    RAISE EXCEPTION 'payslips of tenant %: a referenced run or employee was deleted concurrently', inserted.tenant_low
        USING ERRCODE = 'foreign_key_violation', TABLE = 'payslips';
END $$;

-- The rule_set CHECK of 0001, `rule_set ~ '^kr-[0-9]{4}\.[0-9]{2}$'`, cost ≈ 1.6 µs per row (perf:
-- pg_regexec sets up its matcher on every call; more than all the other CHECKs of payslips
-- together). The same set of strings, without the regex engine (≈ 1.0 µs): translate maps each of
-- the ten ASCII digits to '0' and keeps every other character, so the result is 'kr-0000.00'
-- exactly when the text is `kr-`, four ASCII digits, `.`, two ASCII digits and nothing else; NULL
-- stays allowed (NULL = … is NULL, as NULL ~ … was). Same constraint name. Re-adding it checks every
-- existing payslip once (≈ 1 µs each plus reading the table), under ALTER TABLE's ACCESS EXCLUSIVE lock.
ALTER TABLE payrun.payslips
    DROP CONSTRAINT payslips_rule_set_check,
    ADD CONSTRAINT payslips_rule_set_check CHECK (translate(rule_set, '0123456789', '0000000000') = 'kr-0000.00');
