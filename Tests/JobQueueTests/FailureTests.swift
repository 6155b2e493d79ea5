import Foundation
import JobQueue
import PostgresClient
import Testing

@Suite("JobQueue failures, retries, cancel, rescue")
struct FailureTests {
    static let noDelay = RetryBackoff(baseMilliseconds: 0, capMilliseconds: 0)

    @Test("fail → retried after a backoff → failed after max attempts, every attempt's error kept")
    func retriesThenFails() throws {
        let (database, connection) = try QueueFixture.database("fail_retry")
        defer { database.drop() }
        let id = try JobQueue.enqueue(QueueFixture.job(maxAttempts: 3), on: connection).jobId

        // Attempt 1 with the standard backoff: not claimable for at least half of 1 s.
        let first = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        #expect(try JobQueue.fail(first, error: "boom 1", retryable: true, on: connection) == .retryScheduled)
        let delayMicroseconds = try QueueFixture.count(
            "SELECT (extract(epoch FROM run_at - clock_timestamp()) * 1000000)::bigint FROM payrun.jobs WHERE id = $1",
            [.int(id)], on: connection)
        #expect(delayMicroseconds > 400_000 && delayMicroseconds <= 1_000_000)
        #expect(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).isEmpty)

        try QueueFixture.makeDue(on: connection)
        let second = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        #expect(second.attempt == 2)
        #expect(try JobQueue.fail(second, error: "boom 2", retryable: true, on: connection, backoff: Self.noDelay) == .retryScheduled)
        let third = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        #expect(third.attempt == 3 && third.isLastAttempt)
        #expect(try JobQueue.fail(third, error: "boom 3", retryable: true, on: connection) == .failed)

        let record = try JobQueue.show(id: id, on: connection)
        #expect(record.state == "failed" && record.attempts == 3 && record.finishedAt != nil && record.errorCount == 3)
        #expect(record.lastError == "boom 3")
        let messages = try connection.query(
            "SELECT e ->> 'attempt', e ->> 'message' FROM payrun.jobs, jsonb_array_elements(errors) e WHERE id = $1", [.int(id)])
            .map { "\(try $0.string(at: 0)):\(try $0.string(at: 1))" }
        #expect(messages == ["1:boom 1", "2:boom 2", "3:boom 3"])
    }

    @Test("backoff grows exponentially with the attempt and stays within [½, 1] × min(cap, base × 2^(n−1))")
    func backoffGrows() throws {
        let (database, connection) = try QueueFixture.database("backoff")
        defer { database.drop() }
        let backoff = RetryBackoff(baseMilliseconds: 10_000, capMilliseconds: 40_000)
        let id = try JobQueue.enqueue(QueueFixture.job(maxAttempts: 10), on: connection).jobId
        var delays: [Int64] = []
        for _ in 0..<4 {
            try QueueFixture.makeDue(on: connection)
            let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
            try JobQueue.fail(job, error: "x", retryable: true, on: connection, backoff: backoff)
            delays.append(try QueueFixture.count(
                "SELECT (extract(epoch FROM run_at - clock_timestamp()) * 1000)::bigint FROM payrun.jobs WHERE id = $1",
                [.int(id)], on: connection))
        }
        for (index, expected) in [10_000, 20_000, 40_000, 40_000].enumerated() {
            #expect(delays[index] >= Int64(expected / 2) - 100 && delays[index] <= Int64(expected), "attempt \(index + 1): \(delays[index]) ms")
        }
    }

    @Test("a permanent failure fails the job at once")
    func permanentFailure() throws {
        let (database, connection) = try QueueFixture.database("fail_permanent")
        defer { database.drop() }
        let id = try JobQueue.enqueue(QueueFixture.job(), on: connection).jobId
        let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        #expect(try JobQueue.fail(job, error: "bad payload", retryable: false, on: connection) == .failed)
        let record = try JobQueue.show(id: id, on: connection)
        #expect(record.state == "failed" && record.attempts == 1 && record.lastError == "bad payload")
    }

    @Test("retry of a failed job: pending with a fresh attempt budget, errors kept; not while another with its key is pending")
    func retryFailed() throws {
        let (database, connection) = try QueueFixture.database("retry")
        defer { database.drop() }
        let id = try JobQueue.enqueue(QueueFixture.job(dedup: "k", maxAttempts: 1), on: connection).jobId
        let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        try JobQueue.fail(job, error: "boom", retryable: true, on: connection)
        #expect(try QueueFixture.state(id, on: connection) == "failed")

        try JobQueue.retry(id: id, on: connection)
        let record = try JobQueue.show(id: id, on: connection)
        #expect(record.state == "pending" && record.attempts == 0 && record.finishedAt == nil && record.errorCount == 1)
        let again = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        #expect(again.id == id && again.attempt == 1)
        #expect(throws: JobQueueError.invalidState(jobId: id, state: "running", operation: "retry")) {
            try JobQueue.retry(id: id, on: connection)
        }
        try JobQueue.fail(again, error: "boom again", retryable: false, on: connection)
        let other = try JobQueue.enqueue(QueueFixture.job(dedup: "k"), on: connection).jobId
        #expect(throws: JobQueueError.duplicatePending(jobId: id, pendingJobId: other)) {
            try JobQueue.retry(id: id, on: connection)
        }
        #expect(throws: JobQueueError.notFound(424_242)) { try JobQueue.retry(id: 424_242, on: connection) }
    }

    @Test("cancel: a pending job never runs; a running job's worker can no longer complete it; finished jobs refuse")
    func cancel() throws {
        let (database, connection) = try QueueFixture.database("cancel")
        defer { database.drop() }
        let pending = try JobQueue.enqueue(QueueFixture.job(), on: connection).jobId
        #expect(try JobQueue.cancel(id: pending, reason: "operator", on: connection) == "pending")
        #expect(try JobQueue.claim(on: connection, workerId: "w", limit: 5, leaseSeconds: 30).isEmpty)
        let cancelled = try JobQueue.show(id: pending, on: connection)
        #expect(cancelled.state == "cancelled" && cancelled.lastError == "cancelled: operator")

        let runningId = try JobQueue.enqueue(QueueFixture.job(), on: connection).jobId
        let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        #expect(try JobQueue.cancel(id: runningId, on: connection) == "running")
        #expect(throws: JobQueueError.leaseLost(jobId: runningId)) {
            try FencingTests.writeResultAndComplete(job, note: "x", on: connection)
        }
        #expect(try QueueFixture.count("SELECT count(*) FROM public.results", on: connection) == 0)
        #expect(throws: JobQueueError.invalidState(jobId: runningId, state: "cancelled", operation: "cancel")) {
            try JobQueue.cancel(id: runningId, on: connection)
        }
        #expect(throws: JobQueueError.notFound(987_654)) { try JobQueue.cancel(id: 987_654, on: connection) }
    }

    @Test("rescue: an expired lease makes the job pending again with the error kept; at the last attempt it fails")
    func rescue() throws {
        let (database, connection) = try QueueFixture.database("rescue")
        defer { database.drop() }
        let id = try JobQueue.enqueue(QueueFixture.job(maxAttempts: 2), on: connection).jobId
        let job = try JobQueue.claim(on: connection, workerId: "gone", limit: 1, leaseSeconds: 1)
        #expect(job.count == 1)
        #expect(try JobQueue.rescueExpired(on: connection) == 0)  // lease still valid
        Thread.sleep(forTimeInterval: 1.1)  // a real 1 s lease running out
        #expect(try JobQueue.depth(on: connection).expired == 1)
        #expect(try JobQueue.rescueExpired(on: connection, backoff: Self.noDelay) == 1)
        let record = try JobQueue.show(id: id, on: connection)
        #expect(record.state == "pending" && record.attempts == 1 && record.errorCount == 1)
        #expect(record.lastError?.contains("lease expired") == true && record.lastError?.contains("gone") == true)

        _ = try JobQueue.claim(on: connection, workerId: "gone again", limit: 1, leaseSeconds: 1)
        try QueueFixture.expireLeases(on: connection)
        #expect(try JobQueue.rescueExpired(on: connection) == 1)
        let final = try JobQueue.show(id: id, on: connection)
        #expect(final.state == "failed" && final.attempts == 2 && final.errorCount == 2)
    }
}
