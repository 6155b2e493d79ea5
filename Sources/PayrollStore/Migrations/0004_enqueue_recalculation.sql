-- 0004_enqueue_recalculation.sql — how a backend asks for one employee's payslip to be recomputed.
--
-- The backend calls it in the same transaction that edits a shift or a contract:
--     BEGIN;
--     SELECT set_config('payrun.tenant_id', '42', true);
--     UPDATE payrun.shifts SET ends_at = … WHERE …;
--     SELECT payrun.enqueue_recalculation(42, 1001, '2026-11-01');
--     COMMIT;
-- so the request exists exactly when the edit does.
--
-- * Deduplicated: while a recalculation of the same (tenant, employee, period) is still pending,
--   a second request returns that job's id instead of adding another (partial unique index
--   jobs_dedup_pending). A job already running does not absorb the request, because it may have
--   read the inputs before this edit.
-- * If the employee's run for that period is approved (locked), nothing is recomputed: the request
--   is kept in payrun.pending_corrections and the function returns NULL.
-- * SECURITY DEFINER so that the backend needs no write access to the jobs table; it may only
--   enqueue for the tenant its transaction is scoped to.

CREATE FUNCTION payrun.enqueue_recalculation(
    tenant bigint, employee bigint, period_start date, reason text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    job_id bigint;
    locked_run_id bigint;
BEGIN
    IF tenant IS NULL OR employee IS NULL OR period_start IS NULL THEN
        RAISE EXCEPTION 'enqueue_recalculation: tenant, employee and period_start are required'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF tenant IS DISTINCT FROM payrun.current_tenant_id() THEN
        RAISE EXCEPTION 'enqueue_recalculation: tenant % is not the tenant of this transaction (payrun.tenant_id = %)',
                tenant, coalesce(payrun.current_tenant_id()::text, 'unset')
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM payrun.employees e WHERE e.tenant_id = tenant AND e.id = employee) THEN
        RAISE EXCEPTION 'enqueue_recalculation: employee % does not exist in tenant %', employee, tenant
            USING ERRCODE = 'foreign_key_violation';
    END IF;

    SELECT r.id INTO locked_run_id
      FROM payrun.payroll_runs r
      JOIN payrun.employees e ON e.tenant_id = r.tenant_id AND e.workplace_id = r.workplace_id
     WHERE r.tenant_id = tenant AND e.id = employee AND r.status = 'approved'
       AND enqueue_recalculation.period_start BETWEEN r.period_start AND r.period_end
     LIMIT 1;
    IF locked_run_id IS NOT NULL THEN
        INSERT INTO payrun.pending_corrections AS c (tenant_id, run_id, employee_id, reason)
        VALUES (tenant, locked_run_id, employee, reason)
        ON CONFLICT (tenant_id, run_id, employee_id) WHERE resolved_at IS NULL
        DO UPDATE SET requested_at = now(), reason = coalesce(EXCLUDED.reason, c.reason);
        RETURN NULL;
    END IF;

    INSERT INTO payrun.jobs AS j (kind, tenant_id, payload, priority, dedup_key)
    VALUES ('employee.recalc', tenant,
            jsonb_build_object('employeeId', employee, 'periodStart', enqueue_recalculation.period_start,
                               'reason', reason),
            50,
            format('employee.recalc:%s:%s:%s', tenant, employee, enqueue_recalculation.period_start))
    ON CONFLICT (dedup_key) WHERE state = 'pending' AND dedup_key IS NOT NULL
    DO UPDATE SET run_at = least(j.run_at, EXCLUDED.run_at)
    RETURNING j.id INTO job_id;

    -- Wakes listening workers at commit (polling remains the fallback).
    PERFORM pg_notify('payrun_jobs', 'employee.recalc');
    RETURN job_id;
END $$;

REVOKE ALL ON FUNCTION payrun.enqueue_recalculation(bigint, bigint, date, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION payrun.enqueue_recalculation(bigint, bigint, date, text)
    TO payrun_backend, payrun_worker;
