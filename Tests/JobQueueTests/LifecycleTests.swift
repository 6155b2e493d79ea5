import Foundation
import JobQueue
import PostgresClient
import Testing

@Suite("JobQueue lifecycle")
struct LifecycleTests {
    @Test("enqueue, claim and complete: leased with a fresh token, attempt 1, then succeeded")
    func enqueueClaimComplete() throws {
        let (database, connection) = try QueueFixture.database("lifecycle")
        defer { database.drop() }
        let outcome = try JobQueue.enqueue(QueueFixture.job(payload: #"{"x": 1}"#), on: connection)
        guard case .inserted(let id) = outcome else { Issue.record("expected inserted, got \(outcome)"); return }
        let later = try JobQueue.enqueue(NewJob(kind: "test.later", tenantId: 2, runAfterSeconds: 3600), on: connection)

        let claimed = try JobQueue.claim(on: connection, workerId: "w1", limit: 10, leaseSeconds: 30)
        #expect(claimed.map(\.id) == [id])  // the later job is not due
        let job = try #require(claimed.first)
        #expect(job.kind == "test.echo" && job.tenantId == 1 && job.attempt == 1 && job.maxAttempts == 5)
        #expect(job.payload.contains("\"x\": 1"))
        #expect(job.leaseToken.count == 36)
        let running = try JobQueue.show(id: id, on: connection)
        #expect(running.state == "running" && running.leasedBy == "w1" && running.leasedUntil != nil)
        #expect(try JobQueue.claim(on: connection, workerId: "w2", limit: 10, leaseSeconds: 30).isEmpty)

        try JobQueue.complete(job, on: connection)
        let done = try JobQueue.show(id: id, on: connection)
        #expect(done.state == "succeeded" && done.finishedAt != nil && done.attempts == 1 && done.errorCount == 0)
        // Completing twice is fenced like any lost lease.
        #expect(throws: JobQueueError.leaseLost(jobId: id)) { try JobQueue.complete(job, on: connection) }
        #expect(try QueueFixture.state(later.jobId, on: connection) == "pending")
    }

    @Test("a batch enqueue inserts in order with one statement; a batch complete completes all")
    func batchEnqueueAndComplete() throws {
        let (database, connection) = try QueueFixture.database("batch")
        defer { database.drop() }
        let outcomes = try JobQueue.enqueue((0..<100).map { QueueFixture.job(payload: "{\"n\": \($0)}") }, on: connection)
        #expect(outcomes.count == 100)
        let ids = outcomes.map(\.jobId)
        #expect(ids == ids.sorted() && Set(ids).count == 100)
        let claimed = try JobQueue.claim(on: connection, workerId: "w", limit: 100, leaseSeconds: 30)
        #expect(claimed.count == 100)
        try JobQueue.complete(claimed, on: connection)
        #expect(try QueueFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'succeeded'", on: connection) == 100)
    }

    @Test("claim takes only the kinds asked for")
    func claimByKind() throws {
        let (database, connection) = try QueueFixture.database("kinds")
        defer { database.drop() }
        try JobQueue.enqueue([QueueFixture.job("a.one"), QueueFixture.job("b.two")], on: connection)
        let claimed = try JobQueue.claim(on: connection, workerId: "w", limit: 10, leaseSeconds: 30, kinds: ["b.two"])
        #expect(claimed.map(\.kind) == ["b.two"])
    }

    @Test("bad arguments are refused before the database: attempts, priority, duplicate keys in a batch")
    func badArguments() throws {
        let (database, connection) = try QueueFixture.database("bad_args")
        defer { database.drop() }
        #expect(throws: JobQueueError.self) { try JobQueue.enqueue(QueueFixture.job(maxAttempts: 0), on: connection) }
        #expect(throws: JobQueueError.self) {
            try JobQueue.enqueue(NewJob(kind: "a.b", tenantId: 1, priority: 2000), on: connection)
        }
        #expect(throws: JobQueueError.self) {
            try JobQueue.enqueue([QueueFixture.job(dedup: "k"), QueueFixture.job(dedup: "k")], on: connection)
        }
        #expect(throws: JobQueueError.self) { try JobQueue.claim(on: connection, workerId: "w", limit: 0, leaseSeconds: 30) }
        // The table's own checks still apply (kind syntax).
        #expect(throws: PostgresError.self) { try JobQueue.enqueue(QueueFixture.job("Bad Kind"), on: connection) }
        #expect(try QueueFixture.count("SELECT count(*) FROM payrun.jobs", on: connection) == 0)
    }

    @Test("heartbeat extends held leases and reports the ones lost")
    func heartbeat() throws {
        let (database, connection) = try QueueFixture.database("heartbeat")
        defer { database.drop() }
        try JobQueue.enqueue([QueueFixture.job(), QueueFixture.job()], on: connection)
        let claimed = try JobQueue.claim(on: connection, workerId: "w", limit: 2, leaseSeconds: 2)
        #expect(claimed.count == 2)
        let before = try JobQueue.show(id: claimed[0].id, on: connection).leasedUntil
        try JobQueue.cancel(id: claimed[1].id, on: connection)
        let lost = try JobQueue.heartbeat(claimed, on: connection, leaseSeconds: 60)
        #expect(lost == [claimed[1].id])
        let after = try #require(try JobQueue.show(id: claimed[0].id, on: connection).leasedUntil)
        #expect(after > (before ?? after) && after.unixMicroseconds - Int64(Date().timeIntervalSince1970 * 1e6) > 50_000_000)
    }

    @Test("release gives the job back at once without counting the attempt")
    func release() throws {
        let (database, connection) = try QueueFixture.database("release")
        defer { database.drop() }
        let id = try JobQueue.enqueue(QueueFixture.job(), on: connection).jobId
        let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        #expect(try JobQueue.release(job, on: connection))
        let record = try JobQueue.show(id: id, on: connection)
        #expect(record.state == "pending" && record.attempts == 0 && record.errorCount == 0)
        #expect(try !JobQueue.release(job, on: connection))  // no longer held
        let again = try #require(try JobQueue.claim(on: connection, workerId: "w2", limit: 1, leaseSeconds: 30).first)
        #expect(again.id == id && again.attempt == 1 && again.leaseToken != job.leaseToken)
    }

    @Test("list, show and depth")
    func listShowDepth() throws {
        let (database, connection) = try QueueFixture.database("list")
        defer { database.drop() }
        try JobQueue.enqueue([QueueFixture.job("a.x", tenant: 1), QueueFixture.job("a.y", tenant: 2),
                              NewJob(kind: "a.z", tenantId: 3, runAfterSeconds: 600)], on: connection)
        _ = try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30)
        let depth = try JobQueue.depth(on: connection)
        #expect(depth == QueueDepth(due: 1, scheduled: 1, running: 1, expired: 0))
        #expect(try JobQueue.list(on: connection).count == 3)
        #expect(try JobQueue.list(JobFilter(state: "running"), on: connection).count == 1)
        #expect(try JobQueue.list(JobFilter(kind: "a.y"), on: connection).map(\.tenantId) == [2])
        #expect(try JobQueue.list(JobFilter(tenantId: 3), on: connection).map(\.kind) == ["a.z"])
        #expect(throws: JobQueueError.self) { try JobQueue.list(JobFilter(state: "bogus"), on: connection) }
        #expect(throws: JobQueueError.notFound(999_999)) { try JobQueue.show(id: 999_999, on: connection) }
    }
}
