import Foundation
import JobQueue
import PayrollStore
@testable import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Testing

/// Test handler for kind `test.trusted`: completes its job through `JobContext.complete(on:)` in a
/// tenant transaction, then — after the commit, behind the pool's back — marks the job
/// `cancelled`. The pool's outcome shows whether it read the job's row back after `handle`
/// (it would find the job no longer its own) or trusted the committed completion.
struct TrustedCompletionHandler: JobHandler {
    var kinds: [String] { ["test.trusted"] }

    func handle(_ job: ClaimedJob, context: JobContext) throws {
        try context.tenantTransaction { c in
            let tenant = try c.queryOne("SELECT current_setting('payrun.tenant_id')")?.string(at: 0)
            try c.execute("INSERT INTO public.results (job_id, worker, attempt) VALUES ($1, $2, $3)",
                          [.int(job.id), .text("tenant " + (tenant ?? "?")), .int(job.attempt)])
            try context.complete(on: c)
        }
        try context.connection.execute("UPDATE payrun.jobs SET state = 'cancelled' WHERE id = $1", [.int(job.id)])
    }
}

@Suite("Job completion without reading the job back")
struct CompletionReadTests {
    @Test("a job completed through the context in a committed transaction counts as completed without a read of its row")
    func committedCompletionIsTrusted() throws {
        let (database, connection) = try WorkerFixture.database("trusted_completion")
        defer { database.drop() }
        let running = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, lease: 30),
                                             handlers: [TrustedCompletionHandler()], logger: WorkerFixture.logger))
        defer { running.stop() }
        let id = try JobQueue.enqueue([NewJob(kind: "test.trusted", tenantId: 2, payload: "{}")], on: connection)[0].jobId
        #expect(WorkerFixture.wait(timeout: .seconds(15)) {
            running.pool.metrics.render().contains(#"payrun_jobs_completed_total{kind="test.trusted"} 1"#)
        })
        #expect(!running.pool.metrics.render().contains("payrun_jobs_lease_lost_total{kind=\"test.trusted\"}"))
        #expect(try connection.queryOne("SELECT worker FROM public.results WHERE job_id = $1", [.int(id)])?.string(at: 0) == "tenant 2")
        #expect(try JobQueue.show(id: id, on: connection).state == "cancelled")
    }

    @Test("completionCommitted: true only once the transaction that completed the job has committed")
    func completionCommittedFollowsTheCommit() throws {
        let (database, connection) = try WorkerFixture.database("completion_committed")
        defer { database.drop() }
        try JobQueue.enqueue([NewJob(kind: "test.trusted", tenantId: 1, payload: "{}"),
                              NewJob(kind: "test.trusted", tenantId: 1, payload: "{}"),
                              NewJob(kind: "test.trusted", tenantId: 1, payload: "{}")], on: connection)
        let jobs = try JobQueue.claim(on: connection, workerId: "t", limit: 3, leaseSeconds: 30)
        try #require(jobs.count == 3)
        let contexts = jobs.map { JobContext(connection: connection, job: $0, logger: WorkerFixture.logger) }

        // Completed and committed.
        try contexts[0].tenantTransaction { c in try contexts[0].complete(on: c) }
        #expect(contexts[0].completionCommitted)
        #expect(try JobQueue.show(id: jobs[0].id, on: connection).state == "succeeded")

        // Completed, then rolled back.
        #expect(throws: Refusal.self) {
            try contexts[1].tenantTransaction { c in
                try contexts[1].complete(on: c)
                throw Refusal()
            }
        }
        #expect(!contexts[1].completionCommitted)
        #expect(try JobQueue.show(id: jobs[1].id, on: connection).state == "running")

        // Completed with JobQueue.complete directly: the context knows nothing (the pool reads the row).
        try connection.transaction { c in try JobQueue.complete(jobs[2], on: c) }
        #expect(!contexts[2].completionCommitted)
        // A later commit on the connection does not make an uncommitted completion committed.
        _ = try connection.transaction { c in try c.execute("SELECT 1") }
        #expect(!contexts[1].completionCommitted)
    }

    @Test("tenantTransaction sets the job's tenant for that transaction alone, in the BEGIN's round trip")
    func tenantTransactionSettings() throws {
        let (database, connection) = try WorkerFixture.database("tenant_transaction")
        defer { database.drop() }
        try JobQueue.enqueue([NewJob(kind: "test.trusted", tenantId: 3, payload: "{}")], on: connection)
        let job = try #require(try JobQueue.claim(on: connection, workerId: "t", limit: 1, leaseSeconds: 30).first)
        let context = JobContext(connection: connection, job: job, logger: WorkerFixture.logger)
        let before = connection.roundTrips
        let tenant = try context.tenantTransaction { c in try c.queryOne("SELECT current_setting('payrun.tenant_id')")?.string(at: 0) }
        #expect(tenant == "3")
        #expect(connection.roundTrips - before == 3)  // BEGIN + SET LOCAL, the SELECT, COMMIT
        #expect(try connection.queryOne("SELECT coalesce(current_setting('payrun.tenant_id', true), '')")?.string(at: 0) == "")
    }
}

struct Refusal: Error {}
