import PostgresClient

extension JobQueue {
    /// Claims up to `$1` due jobs in one statement, fairly across tenants.
    ///
    /// 1. `tenant_keys`: the tenants with pending jobs, by a loose index scan of
    ///    `jobs_claimable_by_tenant` (one probe per tenant; tenant-less jobs are key 0).
    /// 2. `candidates`: per tenant its most urgent due jobs (priority, run_at, id), at most
    ///    min(`$1`, ⌊(2·`$1`+16)/T⌋+1) for T tenants with pending jobs, numbered 1, 2, … within
    ///    the tenant (`tenant_rank`). The per-tenant cap keeps the candidates near 2·`$1` however
    ///    many jobs each tenant has queued; when tenants are unbalanced (one tenant with many jobs,
    ///    the others with few) a claim can therefore return fewer than `$1` jobs while more are
    ///    due — claim again (the worker claims until a claim comes back empty). A job whose dedup key has a job
    ///    running is left alone (same-key jobs never run at once).
    /// 3. `ranked`: the first 2·`$1`+16 candidates in (tenant_rank, priority, run_at, id) order —
    ///    every tenant's first job before any tenant's second. (The cap keeps the next step an
    ///    index nested loop: joined against all of `jobs` the planner would scan the table.)
    /// 4. `locked`: those rows locked in that order with `FOR UPDATE SKIP LOCKED` until `$1` are
    ///    held, so concurrent claimers take different jobs without waiting. A claim that finds
    ///    more than `$1`+16 of them locked by other claimers returns fewer; claim again.
    /// 5. The update leases them: fresh token, `attempts + 1`, `leased_until = now + $3 s`.
    ///
    /// Fairness guarantee: in one claim, no tenant gets its (r+1)-th job while another tenant
    /// with a claimable r-th job does not get it, and no tenant gets more than ⌊(2k+16)/T⌋+1. So a claim of k ≥ T jobs (T tenants with due
    /// jobs) includes every tenant's most urgent job, and when every tenant has enough jobs each
    /// gets ⌊k/T⌋ or ⌈k/T⌉. With more tenants than k, tenants are served in order of their most
    /// urgent job's (priority, run_at): a waiting tenant's head only gets older, so it is reached
    /// within ⌈T/k⌉ claims.
    /// The end of every claim statement: leases the rows of its `locked` CTE to worker `$2` for `$3`
    /// seconds (fresh token, `attempts + 1`) and returns them as `ClaimedJob` columns.
    static let leaseLockedSQL = """
        UPDATE payrun.jobs j
           SET state = 'running', attempts = j.attempts + 1, lease_token = gen_random_uuid(), leased_by = $2,
               leased_until = clock_timestamp() + make_interval(secs => $3), heartbeat_at = clock_timestamp(),
               started_at = clock_timestamp()
          FROM locked
         WHERE j.id = locked.id
        RETURNING j.id, j.kind, coalesce(j.tenant_id, 0), j.payload::text, j.attempts, j.max_attempts,
                  j.lease_token::text, j.dedup_key
        """

    static let claimSQL = """
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
                      AND ($4::text[] IS NULL OR j.kind = ANY ($4::text[]))
                      AND (j.dedup_key IS NULL OR NOT EXISTS (
                            SELECT 1 FROM payrun.jobs r WHERE r.state = 'running' AND r.dedup_key = j.dedup_key))
                    ORDER BY j.priority, j.run_at, j.id
                    LIMIT (SELECT least($1, (2 * $1 + 16) / n + 1) FROM tenant_count)) c
             WHERE k.tenant_key IS NOT NULL
        ), ranked AS (
            SELECT c.id, c.tenant_rank, c.priority, c.run_at FROM candidates c
             ORDER BY c.tenant_rank, c.priority, c.run_at, c.id
             LIMIT 2 * $1 + 16
        ), locked AS (
            SELECT j.id FROM ranked r JOIN payrun.jobs j ON j.id = r.id
             WHERE j.state = 'pending'
             ORDER BY r.tenant_rank, r.priority, r.run_at, r.id
             LIMIT $1
               FOR UPDATE OF j SKIP LOCKED
        )
        \(leaseLockedSQL)
        """

    /// Claims up to `limit` due jobs for `workerId`, leased for `leaseSeconds`, fairly across
    /// tenants (see `claimSQL`). Commits on its own unless the caller has a transaction open.
    /// `kinds`: only jobs of these kinds (nil: any kind). Returns them ordered by id.
    ///
    /// The claim statements (`claimSQL`, `claimForTenantSQL`) are planned at every execution
    /// instead of prepared once per connection: a prepared statement switches to a generic plan
    /// after five executions when that plan looks no dearer, and keeps it until something
    /// invalidates it (an ANALYZE of `payrun.jobs`, for instance). A worker whose queue is empty
    /// claims in vain every poll; when `payrun.jobs` holds no rows then (a new installation, or
    /// after a VACUUM found it empty: `reltuples` = 0), the generic plan is costed for an empty
    /// table — sequential scans everywhere, and for every candidate a sequential scan of the
    /// table for the dedup key's NOT EXISTS. Kept for the month-end that follows, with hundreds of
    /// jobs and their dead versions, each claim took 0.3–1.2 s instead of about a millisecond
    /// (session 21: 1,000,000-employee month-ends of a kept worker took 91–190 s instead of
    /// 31–47 s, its job threads waiting for claims; benchmarks/RESULTS.md). Planned each time,
    /// the plan follows the table's current size. The price, per claim (one per job or batch of
    /// jobs, and one per idle poll): ≈ 0.75 ms more on the server (an idle claim 0.85 ms against
    /// 0.10 prepared), which `payrun bench queue` reads as ≈ 1.6 ms more wake-up latency and
    /// 10–20 % fewer small jobs per second.
    ///
    /// A cached plan made safe by the planner's settings was tried and rejected (session 22): the
    /// claim inside a PL/pgSQL function with `SET enable_seqscan = off`, its joins rewritten to
    /// `id = ANY (…)` lookups. Costed for an empty table, every index over the pending rows looks
    /// alike; the generic plan's tenant probes read `jobs_claimable` instead of
    /// `jobs_claimable_by_tenant` and sorted the pending rows they found (99,900 for the first,
    /// 45,000 each for the next ten): 157–252 ms per claim with 100,000 jobs pending, against
    /// 1.2–1.8 ms for the same claims planned each time.
    public static func claim(
        on connection: PostgresConnection, workerId: String, limit: Int, leaseSeconds: Int, kinds: [String]? = nil
    ) throws -> [ClaimedJob] {
        guard limit >= 1 else { throw JobQueueError.invalidArgument("claim limit must be ≥ 1, got \(limit)") }
        guard leaseSeconds >= 1 else { throw JobQueueError.invalidArgument("leaseSeconds must be ≥ 1, got \(leaseSeconds)") }
        // Planned at every execution, not prepared (above).
        let rows = try connection.query(claimSQL, [.int(limit), .text(workerId), .int(leaseSeconds),
                                                   kinds.map { .textArray($0) } ?? .null])
        return try claimedJobs(rows)
    }

    /// The rows `leaseLockedSQL` returns, as jobs ordered by id.
    static func claimedJobs(_ rows: [PostgresRow]) throws -> [ClaimedJob] {
        try rows.map { row in
            ClaimedJob(
                id: try row.int64(at: 0), kind: try row.string(at: 1), tenantId: try row.int64(at: 2),
                payload: try row.string(at: 3), attempt: try row.int(at: 4), maxAttempts: try row.int(at: 5),
                leaseToken: try row.string(at: 6), dedupKey: try row.decode(String?.self, at: 7))
        }.sorted { $0.id < $1.id }
    }
}
