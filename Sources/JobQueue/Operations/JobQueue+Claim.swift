import PostgresClient

extension JobQueue {
    /// The fair claim: `payrun.claim_jobs` (migration 0024), one statement.
    ///
    /// 1. The tenants with pending jobs, by a loose index scan of `jobs_claimable_by_tenant` (one
    ///    probe per tenant; tenant-less jobs are key 0).
    /// 2. Per tenant its most urgent due jobs (priority, run_at, id), at most
    ///    min(k, ⌊(2k+16)/T⌋+1) for T tenants with pending jobs, numbered 1, 2, … within the
    ///    tenant (`tenant_rank`). The per-tenant cap keeps the candidates near 2k however many
    ///    jobs each tenant has queued; when tenants are unbalanced (one tenant with many jobs, the
    ///    others with few) a claim can therefore return fewer than k jobs while more are due —
    ///    claim again (the worker claims until a claim comes back empty). A job whose dedup key
    ///    has a job running is left alone (same-key jobs never run at once).
    /// 3. The first 2k+16 candidates in (tenant_rank, priority, run_at, id) order — every
    ///    tenant's first job before any tenant's second.
    /// 4. Those rows still pending, locked in that order with `FOR UPDATE SKIP LOCKED` until k are
    ///    held, so concurrent claimers take different jobs without waiting. A claim that finds
    ///    more than k+16 of them locked by other claimers returns fewer; claim again.
    /// 5. The update leases them: fresh token, `attempts + 1`, `leased_until = now + lease s`.
    ///
    /// Fairness guarantee: in one claim, no tenant gets its (r+1)-th job while another tenant
    /// with a claimable r-th job does not get it, and no tenant gets more than ⌊(2k+16)/T⌋+1. So a
    /// claim of k ≥ T jobs (T tenants with due jobs) includes every tenant's most urgent job, and
    /// when every tenant has enough jobs each gets ⌊k/T⌋ or ⌈k/T⌉. With more tenants than k,
    /// tenants are served in order of their most urgent job's (priority, run_at): a waiting
    /// tenant's head only gets older, so it is reached within ⌈T/k⌉ claims.
    static let claimSQL = "SELECT * FROM payrun.claim_jobs($1::int, $2::text, $3::int, $4::text[])"

    /// Claims up to `limit` due jobs for `workerId`, leased for `leaseSeconds`, fairly across
    /// tenants (see `claimSQL`). Commits on its own unless the caller has a transaction open.
    /// `kinds`: only jobs of these kinds (nil: any kind). Returns them ordered by id.
    ///
    /// Both claims (`claimSQL`, `claimForTenantSQL`) are functions of migration 0024, called by
    /// statements prepared once per connection; the functions' own statements are prepared once
    /// per session too, and written so that their cached plans stay on the right indexes
    /// whatever the statistics said when they were made (0024 explains how). Before:
    /// - until session 21 the claim statements themselves were prepared. A prepared statement
    ///   switches to a generic plan after five executions and keeps it; a worker polling an
    ///   empty queue whose table a VACUUM had found empty (`reltuples` = 0) got one costed for an
    ///   empty table — sequential scans, and for each candidate a sequential scan for the dedup
    ///   key's NOT EXISTS — and kept it for the month-end after it: 0.3–1.2 s per claim,
    ///   1,000,000-employee month-ends in 91–190 s instead of 31–47 s (benchmarks/RESULTS.md);
    /// - in sessions 21–22 they were planned at every execution: safe, at ≈ 1.65 ms of planning
    ///   per claim in a month-end (122 ms of the server's time per 100,000 employees) and 10–20 %
    ///   of the queue's small-job throughput;
    /// - `SET enable_seqscan = off` alone was not enough (session 22): costed for an empty table,
    ///   every index over the pending rows looked alike, and the tenant probes read the since
    ///   dropped `jobs_claimable` and sorted what they found: 157–252 ms per claim with 100,000
    ///   jobs pending.
    /// `ClaimPlanningTests` holds the claims to reading a few index entries per job claimed with
    /// plans made while the queue was empty.
    public static func claim(
        on connection: PostgresConnection, workerId: String, limit: Int, leaseSeconds: Int, kinds: [String]? = nil
    ) throws -> [ClaimedJob] {
        guard limit >= 1 else { throw JobQueueError.invalidArgument("claim limit must be ≥ 1, got \(limit)") }
        guard leaseSeconds >= 1 else { throw JobQueueError.invalidArgument("leaseSeconds must be ≥ 1, got \(leaseSeconds)") }
        let rows = try connection.queryPrepared(claimSQL, [.int(limit), .text(workerId), .int(leaseSeconds),
                                                   kinds.map { .textArray($0) } ?? .null])
        return try claimedJobs(rows)
    }

    /// The rows a claim function returns, as jobs ordered by id.
    static func claimedJobs(_ rows: [PostgresRow]) throws -> [ClaimedJob] {
        try rows.map { row in
            ClaimedJob(
                id: try row.int64(at: 0), kind: try row.string(at: 1), tenantId: try row.int64(at: 2),
                payload: try row.string(at: 3), attempt: try row.int(at: 4), maxAttempts: try row.int(at: 5),
                leaseToken: try row.string(at: 6), dedupKey: try row.decode(String?.self, at: 7))
        }.sorted { $0.id < $1.id }
    }
}
