-- 0007_job_queue.sql — what the JobQueue module (Sources/JobQueue) needs beyond 0001's `jobs` table.
--
-- * Fair claiming walks the tenants that have pending jobs (a loose index scan: one index probe
--   per tenant) and takes each tenant's most urgent jobs, so it needs pending jobs ordered by
--   tenant first. Tenant-less maintenance jobs (tenant_id NULL) form one group with key 0
--   (tenant ids start at 1). Narrow and partial like jobs_claimable: finished jobs cost nothing.
-- * `diagnostic_job_effects` is written by the built-in diagnostics job kind `system.sleep` in
--   the same transaction that completes the job, so reliability tests can see whose effect
--   committed (a worker that lost its lease must leave no row). It holds no tenant data.

CREATE INDEX jobs_claimable_by_tenant ON payrun.jobs ((coalesce(tenant_id, 0)), priority, run_at, id)
    WHERE state = 'pending';

CREATE TABLE payrun.diagnostic_job_effects (
    job_id      bigint NOT NULL,
    worker_id   text NOT NULL,
    attempt     integer NOT NULL,
    lease_token uuid NOT NULL,
    written_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX diagnostic_job_effects_job ON payrun.diagnostic_job_effects (job_id);

GRANT SELECT, INSERT ON payrun.diagnostic_job_effects TO payrun_worker;
GRANT SELECT ON payrun.diagnostic_job_effects TO payrun_backend;

-- Enqueueing from SQL (other functions, triggers, scripts), like JobQueue.enqueue: deduplicated
-- among pending jobs by `job_dedup_key`, and a NOTIFY on `payrun_jobs` delivered at commit.
-- SECURITY INVOKER: the caller needs INSERT on payrun.jobs (payrun_worker, the owner); backends
-- use payrun.enqueue_recalculation instead.
CREATE FUNCTION payrun.enqueue_job(
    job_kind text, job_tenant bigint, job_payload jsonb DEFAULT '{}', job_dedup_key text DEFAULT NULL,
    job_priority smallint DEFAULT 100, job_run_at timestamptz DEFAULT now(), job_max_attempts integer DEFAULT 5)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    job_id bigint;
BEGIN
    INSERT INTO payrun.jobs AS j (kind, tenant_id, payload, priority, max_attempts, run_at, dedup_key)
    VALUES (job_kind, job_tenant, job_payload, job_priority, job_max_attempts, job_run_at, job_dedup_key)
    ON CONFLICT (dedup_key) WHERE state = 'pending' AND dedup_key IS NOT NULL
    DO UPDATE SET run_at = least(j.run_at, EXCLUDED.run_at)
    RETURNING j.id INTO job_id;
    PERFORM pg_notify('payrun_jobs', job_kind);
    RETURN job_id;
END $$;

REVOKE ALL ON FUNCTION payrun.enqueue_job(text, bigint, jsonb, text, smallint, timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION payrun.enqueue_job(text, bigint, jsonb, text, smallint, timestamptz, integer) TO payrun_worker;
