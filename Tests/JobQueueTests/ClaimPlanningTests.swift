import Foundation
import JobQueue
import PostgresClient
import Testing

/// The claims are planned at every execution (`JobQueue.claim`'s documentation): a generic plan
/// made while the queue table was empty must not stay for the full queue after it.
@Suite("JobQueue claim planning")
struct ClaimPlanningTests {
    /// Generic plans of a claim statement cached on `connection` (PostgreSQL counts them per
    /// prepared statement in `pg_prepared_statements`).
    static func genericClaimPlans(on connection: PostgresConnection) throws -> Int64 {
        try QueueFixture.count("""
            SELECT coalesce(sum(generic_plans), 0)::bigint FROM pg_prepared_statements
             WHERE statement LIKE '%FOR UPDATE%SKIP LOCKED%'
            """, on: connection)
    }

    @Test("claims in vain on an empty, analyzed queue leave no generic plan behind for the full queue after them")
    func noGenericPlanFromAnEmptyQueue() throws {
        let (database, connection) = try QueueFixture.database("claim_planning")
        defer { database.drop() }
        // As a queue a VACUUM found empty: reltuples = 0, so an empty table is what plans are costed for.
        try connection.execute("VACUUM ANALYZE payrun.jobs")
        // An idle worker's polls: more than the five custom plans after which PostgreSQL would
        // switch a prepared statement to its generic plan.
        for _ in 0..<8 {
            #expect(try JobQueue.claim(on: connection, workerId: "idle", limit: 10, leaseSeconds: 30).isEmpty)
            #expect(try JobQueue.claim(on: connection, workerId: "idle", limit: 10, leaseSeconds: 30,
                                       kind: "test.echo", tenantId: 1).isEmpty)
        }
        #expect(try Self.genericClaimPlans(on: connection) == 0)

        // The month-end after it: jobs with dedup keys (the NOT EXISTS a generic plan would scan
        // the table for, per candidate), all claimed by both statements.
        let ids = try JobQueue.enqueue((0..<300).map {
            QueueFixture.job(tenant: Int64($0 % 3 + 1), payload: "{\"n\": \($0)}", dedup: "test:\($0)")
        }, on: connection).map(\.jobId)
        var claimed: [Int64] = []
        while true {
            let fair = try JobQueue.claim(on: connection, workerId: "w", limit: 20, leaseSeconds: 30)
            let topUp = try JobQueue.claim(on: connection, workerId: "w", limit: 5, leaseSeconds: 30, kind: "test.echo", tenantId: 2)
            if fair.isEmpty && topUp.isEmpty { break }
            claimed += (fair + topUp).map(\.id)
        }
        #expect(claimed.sorted() == ids.sorted())
        #expect(try Self.genericClaimPlans(on: connection) == 0)
    }
}
