import JobQueue
import PostgresClient
import Testing

@Suite("JobQueue fencing")
struct FencingTests {
    /// Writes the job's "result" and completes it in one transaction, as a handler does.
    static func writeResultAndComplete(_ job: ClaimedJob, note: String, on connection: PostgresConnection) throws {
        try connection.transaction { connection in
            try connection.execute("INSERT INTO public.results (job_id, note) VALUES ($1, $2)", [.int(job.id), .text(note)])
            try JobQueue.complete(job, on: connection)
        }
    }

    @Test("a worker whose lease expired and was taken over cannot complete, and its results roll back")
    func completeAfterTakeover() throws {
        let (database, connection) = try QueueFixture.database("fence_takeover")
        defer { database.drop() }
        let id = try JobQueue.enqueue(QueueFixture.job(), on: connection).jobId
        let slow = try #require(try JobQueue.claim(on: connection, workerId: "slow", limit: 1, leaseSeconds: 1).first)
        try QueueFixture.expireLeases(on: connection)
        #expect(try JobQueue.rescueExpired(on: connection, backoff: RetryBackoff(baseMilliseconds: 0, capMilliseconds: 0)) == 1)
        let fast = try #require(try JobQueue.claim(on: connection, workerId: "fast", limit: 1, leaseSeconds: 30).first)
        #expect(fast.id == id && fast.attempt == 2 && fast.leaseToken != slow.leaseToken)
        try Self.writeResultAndComplete(fast, note: "fast", on: connection)

        #expect(throws: JobQueueError.leaseLost(jobId: id)) {
            try Self.writeResultAndComplete(slow, note: "slow", on: connection)
        }
        #expect(throws: JobQueueError.leaseLost(jobId: id)) {
            try JobQueue.fail(slow, error: "late", retryable: true, on: connection)
        }
        let notes = try connection.query("SELECT note FROM public.results").map { try $0.string(at: 0) }
        #expect(notes == ["fast"])
        #expect(try QueueFixture.state(id, on: connection) == "succeeded")
    }

    @Test("an expired lease fences completion even before anyone rescued the job")
    func completeAfterExpiry() throws {
        let (database, connection) = try QueueFixture.database("fence_expired")
        defer { database.drop() }
        let id = try JobQueue.enqueue(QueueFixture.job(), on: connection).jobId
        let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 1).first)
        try QueueFixture.expireLeases(on: connection)
        #expect(throws: JobQueueError.leaseLost(jobId: id)) {
            try Self.writeResultAndComplete(job, note: "late", on: connection)
        }
        #expect(try JobQueue.heartbeat([job], on: connection, leaseSeconds: 30) == [id])
        #expect(try QueueFixture.count("SELECT count(*) FROM public.results", on: connection) == 0)
    }

    @Test("the old owner cannot complete while the new owner's claim is still uncommitted")
    func completeRacingTakeover() throws {
        let (database, connection) = try QueueFixture.database("fence_race")
        defer { database.drop() }
        let other = try database.connect()
        let id = try JobQueue.enqueue(QueueFixture.job(), on: connection).jobId
        let old = try #require(try JobQueue.claim(on: connection, workerId: "old", limit: 1, leaseSeconds: 1).first)
        try QueueFixture.expireLeases(on: connection)
        try JobQueue.rescueExpired(on: connection, backoff: RetryBackoff(baseMilliseconds: 0, capMilliseconds: 0))
        // The new owner claims inside an open transaction (holding the row lock)…
        try other.execute("BEGIN")
        let new = try #require(try JobQueue.claim(on: other, workerId: "new", limit: 1, leaseSeconds: 30).first)
        // …and completes after the old owner's attempt has been refused.
        #expect(throws: JobQueueError.leaseLost(jobId: id)) {
            try Self.writeResultAndComplete(old, note: "old", on: connection)
        }
        try JobQueue.complete(new, on: other)
        try other.execute("COMMIT")
        #expect(try QueueFixture.state(id, on: connection) == "succeeded")
        #expect(try QueueFixture.count("SELECT count(*) FROM public.results", on: connection) == 0)
    }
}
