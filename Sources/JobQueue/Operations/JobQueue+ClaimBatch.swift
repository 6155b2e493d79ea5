import PostgresClient

/// Batches: a job thread that took one job of a batchable kind tops its batch up with more due
/// jobs of the same kind and tenant (one statement), and completes them with one statement that
/// says which it still held.
extension JobQueue {
    /// Up to `$1` due pending jobs of kind `$4` and tenant `$5` (0: no tenant), most urgent first,
    /// leased like `claimSQL` does: `payrun.claim_jobs_for_tenant` (migration 0024). A job whose dedup key has a job running is left alone.
    /// Fairness across tenants is the general claim's business: this only tops up a batch of a
    /// tenant whose job was already claimed fairly, so another tenant waits at most one batch.
    static let claimForTenantSQL = "SELECT * FROM payrun.claim_jobs_for_tenant($1::int, $2::text, $3::int, $4::text, $5::bigint)"

    /// Claims up to `limit` due jobs of `kind` for tenant `tenantId` (`NewJob.noTenant` for none),
    /// ordered by id. Commits on its own unless the caller has a transaction open.
    public static func claim(
        on connection: PostgresConnection, workerId: String, limit: Int, leaseSeconds: Int, kind: String, tenantId: Int64
    ) throws -> [ClaimedJob] {
        guard limit >= 1 else { throw JobQueueError.invalidArgument("claim limit must be ≥ 1, got \(limit)") }
        guard leaseSeconds >= 1 else { throw JobQueueError.invalidArgument("leaseSeconds must be ≥ 1, got \(leaseSeconds)") }
        // Prepared: see `claim(on:workerId:limit:leaseSeconds:kinds:)`.
        let rows = try connection.queryPrepared(claimForTenantSQL, [
            .int(limit), .text(workerId), .int(leaseSeconds), .text(kind), .int(tenantId),
        ])
        return try claimedJobs(rows)
    }

    /// Completes the jobs this worker still holds, with one statement (fenced like `complete`), and
    /// returns the ids it completed. Unlike `complete`, a lost lease does not throw: the caller
    /// compares and, if a job is missing, must roll back (its results are in the transaction) and
    /// redo the batch without it.
    public static func completeHeld(_ jobs: [ClaimedJob], on connection: PostgresConnection) throws -> Set<Int64> {
        if jobs.isEmpty { return [] }
        let rows = try connection.queryPrepared(completeSQL, [.int64Array(jobs.map(\.id)), .textArray(jobs.map(\.leaseToken))])
        return Set(try rows.map { try $0.int64(at: 0) })
    }
}
