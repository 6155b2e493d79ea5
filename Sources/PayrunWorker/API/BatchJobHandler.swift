import JobQueue
import Logging
import PostgresClient

/// A handler that does many jobs of one kind and one tenant together, sharing the per-statement
/// and per-commit costs (e.g. `employee.recalc`: one set of COPYs, one payslip write and one
/// commit for the whole batch).
///
/// How the pool runs it: a job thread that took a job of this kind tops the batch up to
/// `batchSize` with one claim statement for the same kind and tenant
/// (`JobQueue.claim(…, kind:, tenantId:)`), then calls `handleBatch`. Every job of the batch is in
/// flight (heartbeats, shutdown, release) until the batch returns.
///
/// Contract: in ONE transaction, write the results of the jobs it completes and complete them
/// with one fenced statement (`JobQueue.completeHeld`). A job whose lease was lost must neither be
/// completed nor have its results committed: when `completeHeld` returns fewer jobs than asked,
/// roll back and redo the batch without the lost ones. Return one `BatchJobResult` per job; the
/// pool records `.failed` jobs (retry with backoff, or `failed` for a permanent failure). Throwing
/// fails every job of the batch with that error.
public protocol BatchJobHandler: JobHandler {
    /// Most jobs handled together (≤ 1: one at a time through `handle`).
    var batchSize: Int { get }
    func handleBatch(_ jobs: [ClaimedJob], context: BatchJobContext) throws -> [Int64: BatchJobResult]
}

/// What happened to one job of a batch.
public enum BatchJobResult: Sendable {
    /// Completed (with its results) in the batch's transaction.
    case completed
    /// Not completed: record a failed attempt with this failure.
    case failed(JobFailure)
    /// Its lease was lost: nothing of it committed, nothing to record.
    case leaseLost
}

/// What a batch handler gets: the job thread's connection, a logger, per-job lease flags, metrics.
public final class BatchJobContext {
    /// This job thread's connection (no transaction open when `handleBatch` is called).
    public let connection: PostgresConnection
    public let jobs: [ClaimedJob]
    /// Metadata: `kind`, `tenant`, `batch` (size), `worker`.
    public let logger: Logger
    public let workerId: String
    let flags: [Int64: JobFlags]
    let metrics: WorkerMetrics

    init(connection: PostgresConnection, jobs: [ClaimedJob], flags: [Int64: JobFlags], logger: Logger, workerId: String,
         metrics: WorkerMetrics) {
        self.connection = connection
        self.jobs = jobs
        self.flags = flags
        self.logger = logger
        self.workerId = workerId
        self.metrics = metrics
    }

    /// A context outside a pool, for testing a handler on its own.
    public convenience init(connection: PostgresConnection, jobs: [ClaimedJob], logger: Logger, workerId: String = "test") {
        var flags: [Int64: JobFlags] = [:]
        for job in jobs { flags[job.id] = JobFlags(shutdown: false) }
        self.init(connection: connection, jobs: jobs, flags: flags, logger: logger, workerId: workerId, metrics: WorkerMetrics())
    }

    /// True once a heartbeat found this job's lease gone: leave it out, it cannot commit.
    public func leaseLost(_ jobId: Int64) -> Bool { flags[jobId]?.leaseLost.load(ordering: .relaxed) ?? false }

    /// Counts employees computed (metric `payrun_employees_computed_total`).
    public func recordEmployeesComputed(_ count: Int) {
        metrics.employeesComputed.increment(by: Int64(count))
    }
}
