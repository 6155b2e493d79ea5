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
