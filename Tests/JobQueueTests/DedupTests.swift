import JobQueue
import PostgresClient
import Testing

@Suite("JobQueue deduplication")
struct DedupTests {
    @Test("50 enqueues with one key make one job; a new one is allowed once it runs, but runs only after it")
    func fiftyEnqueuesOneJob() throws {
        let (database, connection) = try QueueFixture.database("dedup")
        defer { database.drop() }
        var outcomes: [EnqueueOutcome] = []
        for n in 0..<50 {
            outcomes.append(try JobQueue.enqueue(
                QueueFixture.job("employee.recalc", payload: "{\"edit\": \(n)}", dedup: "employee.recalc:1:7:2026-11-01"),
                on: connection))
        }
        let first = outcomes[0].jobId
        #expect(outcomes[0] == .inserted(first))
        #expect(outcomes.dropFirst().allSatisfy { $0 == .deduplicated(first) })
        #expect(try QueueFixture.count("SELECT count(*) FROM payrun.jobs", on: connection) == 1)

        let running = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 10, leaseSeconds: 30).first)
        #expect(running.id == first && running.dedupKey == "employee.recalc:1:7:2026-11-01")
        // An edit while it runs may not be seen by it: a new job is needed…
        let second = try JobQueue.enqueue(QueueFixture.job("employee.recalc", dedup: "employee.recalc:1:7:2026-11-01"), on: connection)
        guard case .inserted(let secondId) = second else { Issue.record("expected a new job, got \(second)"); return }
        // …and further edits fold into that one.
        #expect(try JobQueue.enqueue(QueueFixture.job("employee.recalc", dedup: "employee.recalc:1:7:2026-11-01"), on: connection)
                == .deduplicated(secondId))
        // Same-key jobs never run at once: the second waits for the first.
        #expect(try JobQueue.claim(on: connection, workerId: "w2", limit: 10, leaseSeconds: 30).isEmpty)
        try JobQueue.complete(running, on: connection)
        #expect(try JobQueue.claim(on: connection, workerId: "w2", limit: 10, leaseSeconds: 30).map(\.id) == [secondId])
    }

    @Test("duplicate recalculation requests through payrun.enqueue_recalculation produce one job, claimable by the queue")
    func recalculationRequests() throws {
        let (database, connection) = try QueueFixture.database("dedup_sql")
        defer { database.drop() }
        try connection.execute("INSERT INTO payrun.workplaces (tenant_id, id, name, size_class) VALUES (1, 11, 'Store', 'five_or_more')")
        try connection.execute(
            "INSERT INTO payrun.employees (tenant_id, id, workplace_id, name, hired_on) VALUES (1, 21, 11, 'Kim', '2026-01-02')")
        for _ in 0..<50 {
            try connection.transaction { connection in
                try connection.execute("SELECT set_config('payrun.tenant_id', '1', true)")
                try connection.execute("SELECT payrun.enqueue_recalculation(1, 21, '2026-11-01')")
            }
        }
        #expect(try QueueFixture.count("SELECT count(*) FROM payrun.jobs", on: connection) == 1)
        let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 5, leaseSeconds: 30).first)
        #expect(job.kind == "employee.recalc" && job.tenantId == 1 && job.dedupKey == "employee.recalc:1:21:2026-11-01")
    }

    @Test("a failing job whose key has a newer pending job is superseded, not requeued next to it")
    func supersededOnFailure() throws {
        let (database, connection) = try QueueFixture.database("dedup_fail")
        defer { database.drop() }
        let first = try JobQueue.enqueue(QueueFixture.job(dedup: "k"), on: connection).jobId
        let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 1, leaseSeconds: 30).first)
        let second = try JobQueue.enqueue(QueueFixture.job(dedup: "k"), on: connection).jobId
        #expect(second != first)
        #expect(try JobQueue.fail(job, error: "boom", retryable: true, on: connection) == .superseded(by: second))
        #expect(try QueueFixture.state(first, on: connection) == "cancelled")
        #expect(try QueueFixture.state(second, on: connection) == "pending")
    }
}

@Suite("JobQueue enqueue from SQL")
struct SQLEnqueueTests {
    @Test("payrun.enqueue_job enqueues in the caller's transaction, deduplicates, and notifies at commit")
    func enqueueJobFunction() throws {
        let (database, connection) = try QueueFixture.database("sql_enqueue")
        defer { database.drop() }
        let listener = try database.connect()
        try JobQueue.listen(on: listener)
        let ids = try connection.transaction { connection -> [Int64] in
            try (0..<3).map { _ in
                try connection.queryOne("SELECT payrun.enqueue_job('month.end', 2, '{\"month\": \"2026-11\"}', 'month.end:2:2026-11')")!
                    .int64(at: 0)
            }
        }
        #expect(Set(ids).count == 1)
        #expect(try JobQueue.waitForWakeUp(on: listener, timeout: .seconds(2)))
        let job = try #require(try JobQueue.claim(on: connection, workerId: "w", limit: 5, leaseSeconds: 30).first)
        #expect(job.id == ids[0] && job.kind == "month.end" && job.tenantId == 2 && job.payload.contains("2026-11"))
        // Rolled back with the caller's transaction: no job.
        try? connection.transaction { connection in
            try connection.execute("SELECT payrun.enqueue_job('month.end', 3)")
            throw JobQueueError.invalidArgument("roll back")
        }
        #expect(try QueueFixture.count("SELECT count(*) FROM payrun.jobs", on: connection) == 1)
    }
}
