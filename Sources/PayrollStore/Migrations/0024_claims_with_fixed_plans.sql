-- 0024_claims_with_fixed_plans.sql — the two claim statements of JobQueue as functions whose
-- cached plans cannot be costed into a scan of the queue.
--
-- Why. A claim runs once per job (or batch) and once per idle poll of every worker, so it should
-- be planned once per session, not per execution. Until session 21 the claims were prepared
-- statements: after five executions PostgreSQL switched to a generic plan and kept it. When a
-- worker had polled an empty queue whose table a VACUUM had found empty (reltuples = 0), that plan
-- was costed for an empty table — sequential scans, and for every candidate a sequential scan
-- for the dedup key's NOT EXISTS — and kept for the month-end that followed: 0.3–1.2 s per claim,
-- 1,000,000-employee month-ends in 91–190 s instead of 31–47 s (benchmarks/RESULTS.md, session
-- 21). Since then the claims were planned at every execution: safe, but ≈ 1.65 ms of planning per
-- claim during a month-end (pg_stat_statements: 122 ms of the server's time per
-- 100,000-employee month-end, plus 76 ms executing) and ≈ 20 % of the queue's small-job
-- throughput (`payrun bench queue`).
--
-- What. payrun.claim_jobs and payrun.claim_jobs_for_tenant run the claims as before, inside
-- PL/pgSQL, whose statements are prepared once per session like any prepared statement. Each
-- reference to payrun.jobs is written so that, with sequential scans and sorts disabled for the
-- function (SET enable_seqscan, enable_sort = off: PostgreSQL then only takes them where no
-- other path exists), one access path is left for it, whatever the statistics say:
--   * the tenant probes and each tenant's candidates want pending rows in (tenant key, priority,
--     run_at, id) order: only jobs_claimable_by_tenant (0007) gives it without a sort. The
--     older jobs_claimable (0001, pending rows by priority, run_at, id) is dropped: no statement
--     has used it since 0007, and costed for an empty table it looked as cheap, read with a
--     filter on the tenant and a sort (tried: 157–252 ms per claim with 100,000 jobs pending);
--   * the ranked candidates are locked through the primary key (id = ANY (…)); their state test
--     is written coalesce(state, '') = 'pending' so that no partial index over pending rows can
--     be proved to cover it (such an index read whole, filtered by id, looked as cheap);
--   * the update finds the locked rows by primary key (id = ANY (…)), not by a join;
--   * the dedup NOT EXISTS reads only running rows (jobs_dedup_running or jobs_leases), a few
--     per worker thread.
-- jit = off: the cost PostgreSQL adds to the remaining sorts (they are required: the window's
-- and the ranking's, over at most 2·max_jobs+16 rows) lifts the plans over jit_above_cost, and
-- compiling them took ≈ 0.5 s per claim.
-- Measured on a generic plan made while the table was empty, then run with 100,000 jobs pending
-- (10 tenants, dedup keys, 100 running): 0.7–0.9 ms per claim of 10, against 1.3–1.8 ms for the
-- claim planned at every execution.
--
-- The claim itself is unchanged (JobQueue.claim documents it; the fairness guarantee holds):
--   1. tenant_keys: the tenants with pending jobs (one index probe per tenant; tenant-less jobs
--      are key 0);
--   2. candidates: per tenant its most urgent due jobs, at most min(k, ⌊(2k+16)/T⌋+1) for T
--      tenants, numbered 1, 2, … within the tenant; a job whose dedup key has a job running is
--      left alone;
--   3. ranked: the first 2k+16 candidates by (tenant_rank, priority, run_at, id), kept as an
--      array in that order;
--   4. locked: those rows still pending, locked in that order with FOR UPDATE SKIP LOCKED until k
--      are held;
--   5. the update leases them: fresh token, attempts + 1, leased_until = now + lease_seconds.
-- SECURITY INVOKER: row-level security and privileges are the caller's, as for the statements.

DROP INDEX payrun.jobs_claimable;

CREATE FUNCTION payrun.claim_jobs(max_jobs integer, worker_id text, lease_seconds integer, kinds text[] DEFAULT NULL)
RETURNS TABLE (job_id bigint, job_kind text, job_tenant bigint, job_payload text, job_attempts integer,
               job_max_attempts integer, job_lease_token text, job_dedup_key text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
SET enable_sort = off
SET jit = off
AS $$
BEGIN
    RETURN QUERY
    WITH RECURSIVE tenant_keys AS (
        (SELECT coalesce(j.tenant_id, 0) AS tenant_key FROM payrun.jobs j
          WHERE j.state = 'pending' ORDER BY coalesce(j.tenant_id, 0) LIMIT 1)
        UNION ALL
        SELECT (SELECT coalesce(j.tenant_id, 0) FROM payrun.jobs j
                 WHERE j.state = 'pending' AND coalesce(j.tenant_id, 0) > k.tenant_key
                 ORDER BY coalesce(j.tenant_id, 0) LIMIT 1)
          FROM tenant_keys k WHERE k.tenant_key IS NOT NULL
    ), tenant_count AS (
        SELECT greatest(count(*), 1) AS n FROM tenant_keys WHERE tenant_key IS NOT NULL
    ), candidates AS (
        SELECT c.id, c.priority, c.run_at,
               row_number() OVER (PARTITION BY k.tenant_key ORDER BY c.priority, c.run_at, c.id) AS tenant_rank
          FROM tenant_keys k
         CROSS JOIN LATERAL (
               SELECT j.id, j.priority, j.run_at FROM payrun.jobs j
                WHERE j.state = 'pending' AND coalesce(j.tenant_id, 0) = k.tenant_key AND j.run_at <= now()
                  AND (kinds IS NULL OR j.kind = ANY (kinds))
                  AND (j.dedup_key IS NULL OR NOT EXISTS (
                        SELECT 1 FROM payrun.jobs r WHERE r.state = 'running' AND r.dedup_key = j.dedup_key))
                ORDER BY j.priority, j.run_at, j.id
                LIMIT (SELECT least(max_jobs, (2 * max_jobs + 16) / n + 1) FROM tenant_count)) c
         WHERE k.tenant_key IS NOT NULL
    ), ranked AS (
        SELECT array_agg(c.id ORDER BY c.tenant_rank, c.priority, c.run_at, c.id) AS ids
          FROM (SELECT c.id, c.tenant_rank, c.priority, c.run_at FROM candidates c
                 ORDER BY c.tenant_rank, c.priority, c.run_at, c.id
                 LIMIT 2 * max_jobs + 16) c
    ), locked AS (
        SELECT j.id FROM payrun.jobs j
         WHERE j.id = ANY ((SELECT ids FROM ranked)::bigint[]) AND coalesce(j.state, '') = 'pending'
         ORDER BY array_position((SELECT ids FROM ranked), j.id)
         LIMIT max_jobs
           FOR UPDATE OF j SKIP LOCKED
    )
    UPDATE payrun.jobs j
       SET state = 'running', attempts = j.attempts + 1, lease_token = gen_random_uuid(), leased_by = worker_id,
           leased_until = clock_timestamp() + make_interval(secs => lease_seconds), heartbeat_at = clock_timestamp(),
           started_at = clock_timestamp()
     WHERE j.id = ANY (ARRAY(SELECT l.id FROM locked l))
    RETURNING j.id, j.kind, coalesce(j.tenant_id, 0), j.payload::text, j.attempts, j.max_attempts,
              j.lease_token::text, j.dedup_key;
END
$$;

COMMENT ON FUNCTION payrun.claim_jobs(integer, text, integer, text[]) IS
    'claims up to max_jobs due jobs fairly across tenants for worker_id, leased for lease_seconds; kinds: only these (NULL: any) (0024; JobQueue.claim)';

-- The batch top-up: up to max_jobs due pending jobs of one kind and tenant key (0: no tenant),
-- most urgent first, leased like claim_jobs (JobQueue.claim(…, kind:, tenantId:)). The locking
-- scan reads jobs_claimable_by_tenant in its order (no other index gives it without a sort).
CREATE FUNCTION payrun.claim_jobs_for_tenant(max_jobs integer, worker_id text, lease_seconds integer,
                                             job_kind_wanted text, tenant_key bigint)
RETURNS TABLE (job_id bigint, job_kind text, job_tenant bigint, job_payload text, job_attempts integer,
               job_max_attempts integer, job_lease_token text, job_dedup_key text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
SET enable_sort = off
SET jit = off
AS $$
BEGIN
    RETURN QUERY
    WITH locked AS (
        SELECT j.id FROM payrun.jobs j
         WHERE j.state = 'pending' AND coalesce(j.tenant_id, 0) = tenant_key AND j.kind = job_kind_wanted
           AND j.run_at <= now()
           AND (j.dedup_key IS NULL OR NOT EXISTS (
                 SELECT 1 FROM payrun.jobs r WHERE r.state = 'running' AND r.dedup_key = j.dedup_key))
         ORDER BY j.priority, j.run_at, j.id
         LIMIT max_jobs
           FOR UPDATE SKIP LOCKED
    )
    UPDATE payrun.jobs j
       SET state = 'running', attempts = j.attempts + 1, lease_token = gen_random_uuid(), leased_by = worker_id,
           leased_until = clock_timestamp() + make_interval(secs => lease_seconds), heartbeat_at = clock_timestamp(),
           started_at = clock_timestamp()
     WHERE j.id = ANY (ARRAY(SELECT l.id FROM locked l))
    RETURNING j.id, j.kind, coalesce(j.tenant_id, 0), j.payload::text, j.attempts, j.max_attempts,
              j.lease_token::text, j.dedup_key;
END
$$;

COMMENT ON FUNCTION payrun.claim_jobs_for_tenant(integer, text, integer, text, bigint) IS
    'claims up to max_jobs due jobs of one kind and tenant key (0: none) for worker_id, leased for lease_seconds (0024; JobQueue.claim(…, kind:, tenantId:))';

REVOKE ALL ON FUNCTION payrun.claim_jobs(integer, text, integer, text[]),
                       payrun.claim_jobs_for_tenant(integer, text, integer, text, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION payrun.claim_jobs(integer, text, integer, text[]),
                          payrun.claim_jobs_for_tenant(integer, text, integer, text, bigint) TO payrun_worker;
