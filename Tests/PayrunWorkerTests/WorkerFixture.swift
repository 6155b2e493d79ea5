import Foundation
import JobQueue
import Logging
import PayrollStore
import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing

/// Test handler for kind `test.echo`: writes `public.results (job_id, worker, attempt)` and
/// completes the job in one transaction. Payload switches:
/// `sleepMs` (sleep first), `failAttempts` (throw on attempts ≤ n), `permanent` (throw
/// `JobFailure.permanent`), `forget` (return without completing), `untilStop` (wait for
/// `shouldStop`, then complete), `noteStart` (record the start time in `public.starts`).
struct EchoHandler: JobHandler {
    var kinds: [String] { ["test.echo"] }

    func handle(_ job: ClaimedJob, context: JobContext) throws {
        let payload = (try? JSONSerialization.jsonObject(with: Data(job.payload.utf8)) as? [String: Any]) ?? [:]
        if payload["noteStart"] != nil {
            try context.connection.execute("INSERT INTO public.starts (job_id, at) VALUES ($1, clock_timestamp())", [.int(job.id)])
        }
        if let milliseconds = (payload["sleepMs"] as? NSNumber)?.intValue { usleep(UInt32(milliseconds) * 1000) }
        if let failures = (payload["failAttempts"] as? NSNumber)?.intValue, job.attempt <= failures {
            throw JobFailure.retryable("planned failure on attempt \(job.attempt)")
        }
        if payload["permanent"] != nil { throw JobFailure.permanent("planned permanent failure") }
        if payload["forget"] != nil { return }
        if payload["untilStop"] != nil {
            while !context.shouldStop { usleep(20_000) }
        }
        try context.connection.transaction { connection in
            try connection.execute("INSERT INTO public.results (job_id, worker, attempt) VALUES ($1, $2, $3)",
                                   [.int(job.id), .text(context.workerId), .int(job.attempt)])
            try JobQueue.complete(job, on: connection)
        }
        context.recordEmployeesComputed(1)
    }
}

enum WorkerFixture {
    /// A migrated database with tenants 1…3 and the result tables the test handler writes.
    static func database(_ label: String) throws -> (TestDatabase, PostgresConnection) {
        let database = try TestDatabase.create("worker_" + label)
        let connection = try database.connect()
        try prepare(connection)
        return (database, connection)
    }

    static func prepare(_ connection: PostgresConnection) throws {
        try Migrator().migrate(connection)
        try connection.execute("INSERT INTO payrun.tenants (id, name) SELECT n, 'Tenant ' || n FROM generate_series(1, 3) n")
        try connection.execute("CREATE TABLE public.results (job_id bigint NOT NULL, worker text NOT NULL, attempt int NOT NULL)")
        try connection.execute("CREATE TABLE public.starts (job_id bigint NOT NULL, at timestamptz NOT NULL)")
    }

    static func configuration(_ url: String, threads: Int = 2, workerId: String = "test-worker", poll: Int = 1,
                              lease: Int = 2, grace: Int = 5, metricsPort: Int? = nil) -> WorkerConfiguration {
        WorkerConfiguration(
            databaseURL: url, jobThreads: threads, claimBatchMax: 16, leaseSeconds: lease, heartbeatSeconds: 1,
            pollSeconds: poll, shutdownGraceSeconds: grace, metricsPort: metricsPort, workerId: workerId,
            retryBackoff: RetryBackoff(baseMilliseconds: 0, capMilliseconds: 0))
    }

    static var logger: Logger {
        var logger = Logger(label: "payrun.worker.test")
        logger.logLevel = .critical
        return logger
    }

    static func count(_ sql: String, on connection: PostgresConnection) throws -> Int64 {
        try connection.queryOne(sql)?.int64(at: 0) ?? -1
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
    static func wait(timeout: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }
}

/// Runs a pool on its own thread.
final class RunningPool: Sendable {
    let pool: WorkerPool
    private let finished = DispatchSemaphore(value: 0)
    private let failure = Mutex<String?>(nil)

    init(_ pool: WorkerPool) {
        self.pool = pool
        Thread { [self] in
            do { try pool.run() } catch { self.failure.withLock { $0 = "\(error)" } }
            self.finished.signal()
        }.start()
    }

    /// Stops the pool and waits for run() to return; true if it did within `timeout`.
    @discardableResult
    func stop(timeout: Duration = .seconds(15)) -> Bool {
        pool.stop()
        let (seconds, _) = timeout.components
        return finished.wait(timeout: .now() + .seconds(Int(seconds))) == .success
    }

    var error: String? { failure.withLock { $0 } }
}
