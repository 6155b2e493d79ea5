import Foundation
import JobQueue
import PostgresClient
import Testing

/// The claims' statements are prepared once per session (migration 0024, `JobQueue.claim`'s
/// documentation): a plan made while the queue table was empty must still read the full queue
/// after it through the indexes, a few entries per job claimed — not the whole table or a whole
/// index per claim, as the generic plans of session 21 and of a first try in session 22 did.
@Suite("JobQueue claim planning")
struct ClaimPlanningTests {
    /// Rows of `payrun.jobs` read so far: by index scans (live rows fetched: `idx_tup_fetch`) and
    /// by sequential scans (`seq_tup_read`). Index entries of dead rows are left out: how many a
    /// scan steps over depends on what other transactions of the cluster still see, not on the
    /// plan. `pg_stat_force_next_flush()` makes this backend publish its pending counts as the
    /// statement ends, before the next one reads them.
    static func jobsRowsRead(on connection: PostgresConnection) throws -> Int64 {
        try connection.execute("SELECT pg_stat_force_next_flush()")
        return try QueueFixture.count("""
            SELECT (coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0))::bigint
              FROM pg_stat_user_tables WHERE relid = 'payrun.jobs'::regclass
            """, on: connection)
    }

    @Test("claims planned on an empty, analyzed queue read a few index entries per job on the full queue after it")
    func plansMadeOnAnEmptyQueueStayOnTheIndexes() throws {
        let (database, connection) = try QueueFixture.database("claim_planning")
        defer { database.drop() }
        // As a queue a VACUUM found empty: reltuples = 0, so an empty table is what plans are costed for.
        try connection.execute("VACUUM ANALYZE payrun.jobs")
        // Every cached plan generic, made at its first execution (PostgreSQL's default would switch
        // to it after five): the idle polls below make them, on the empty table.
        try connection.execute("SET plan_cache_mode = force_generic_plan")
        for _ in 0..<3 {
            #expect(try JobQueue.claim(on: connection, workerId: "idle", limit: 20, leaseSeconds: 30).isEmpty)
            #expect(try JobQueue.claim(on: connection, workerId: "idle", limit: 5, leaseSeconds: 30,
                                       kind: "test.echo", tenantId: 2).isEmpty)
        }

        // The month-end after it: jobs with dedup keys (the NOT EXISTS a plan for an empty table
        // scanned the table for, per candidate), claimed by both statements and completed as a
        // worker would, so that a few are running at any time.
        let jobCount = 1_500
        let ids = try JobQueue.enqueue((0..<jobCount).map {
            QueueFixture.job(tenant: Int64($0 % 3 + 1), payload: "{\"n\": \($0)}", dedup: "test:\($0)")
        }, on: connection).map(\.jobId)
        var claimed: [Int64] = []
        var claimReads: Int64 = 0
        var claims = 0
        while true {
            let before = try Self.jobsRowsRead(on: connection)
            let fair = try JobQueue.claim(on: connection, workerId: "w", limit: 20, leaseSeconds: 30)
            let topUp = try JobQueue.claim(on: connection, workerId: "w", limit: 5, leaseSeconds: 30, kind: "test.echo", tenantId: 2)
            claimReads += try Self.jobsRowsRead(on: connection) - before
            claims += 2
            if fair.isEmpty && topUp.isEmpty { break }
            claimed += (fair + topUp).map(\.id)
            try JobQueue.complete(fair + topUp, on: connection)
        }
        #expect(claimed.sorted() == ids.sorted())
        // An index plan reads per claim of k jobs: one entry per tenant probe, the candidates
        // (≤ 2k+16) once to rank and once to lock them, the k it leases, and the running jobs'
        // dedup keys: here ≈ 6 per job claimed. Plans that scan the table or a whole index per
        // claim read hundreds to thousands per job (session 21's: the table per candidate).
        let perJob = Double(claimReads) / Double(jobCount)
        #expect(perJob < 20, "claims read \(claimReads) index entries and rows for \(jobCount) jobs in \(claims) claims (\(perJob) per job)")
        #expect(try QueueFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'succeeded'", on: connection) == Int64(jobCount))
    }
}
