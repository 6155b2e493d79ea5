import Logging
import Metrics
import PostgresClient
import JobQueue
import Synchronization

/// What a handler gets besides its job: the job thread's own connection, a logger carrying the
/// job's metadata, metric hooks, and whether to stop early.
public final class JobContext {
    /// This job thread's connection (no transaction open when `handle` is called).
    public let connection: PostgresConnection
    public let job: ClaimedJob
    /// Metadata: `job`, `kind`, `tenant`, `attempt`, `worker`, and `run` when the payload has `runId`.
    public let logger: Logger
    /// This worker's id (as in `jobs.leased_by`).
    public let workerId: String
    let flags: JobFlags
    let metrics: WorkerMetrics
    /// The connection's transaction (`PostgresConnection.openTransactionSerial`) in which
    /// `complete(on:)` completed the job; nil until then.
    private(set) var completionTransactionSerial: Int?

    init(connection: PostgresConnection, job: ClaimedJob, logger: Logger, workerId: String, flags: JobFlags, metrics: WorkerMetrics) {
        self.connection = connection
        self.workerId = workerId
        self.job = job
        self.logger = logger
        self.flags = flags
        self.metrics = metrics
    }

    /// A context outside a pool, for testing a handler on its own: not stopping, metrics into a
    /// private registry.
    public convenience init(connection: PostgresConnection, job: ClaimedJob, logger: Logger, workerId: String = "test") {
        self.init(connection: connection, job: job, logger: logger, workerId: workerId,
                  flags: JobFlags(shutdown: false), metrics: WorkerMetrics())
    }

    /// True once the worker is shutting down or this job's lease was lost: finish quickly or
    /// throw; a lost lease means nothing you write can commit anyway.
    public var shouldStop: Bool { flags.shutdown.load(ordering: .relaxed) || flags.leaseLost.load(ordering: .relaxed) }

    /// True once a heartbeat found the lease gone (expired and rescued, cancelled).
    public var leaseLost: Bool { flags.leaseLost.load(ordering: .relaxed) }

    /// Counts employees computed (metric `payrun_employees_computed_total`).
    public func recordEmployeesComputed(_ count: Int) {
        metrics.employeesComputed.increment(by: Int64(count))
    }

    /// Scopes the open transaction to the job's tenant (`payrun.tenant_id`, row-level security).
    public func scopeToTenant(_ connection: PostgresConnection) throws {
        try connection.executePrepared("SELECT set_config('payrun.tenant_id', $1, true)", [.text(String(job.tenantId))])
    }

    /// Runs `body` in a transaction on the job's connection scoped to the job's tenant: `BEGIN`
    /// and the tenant (`SET LOCAL payrun.tenant_id`, as `scopeToTenant` sets it) in one round trip,
    /// with `settingLocally` (more `SET LOCAL`s, e.g. `synchronous_commit`) in the same round trip.
    public func tenantTransaction<T>(settingLocally settings: [(name: String, value: String)] = [],
                                     _ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.transaction(settingLocally: [(name: "payrun.tenant_id", value: String(job.tenantId))] + settings, body)
    }

    /// Completes the job (`JobQueue.complete`, fenced by the lease: throws `leaseLost` if it is no
    /// longer held) in the transaction open on `connection`, and notes which transaction it was.
    /// When that transaction was opened by `PostgresConnection.transaction` and its COMMIT went
    /// through, the pool knows the job succeeded without reading the job's row back.
    public func complete(on connection: PostgresConnection) throws {
        try JobQueue.complete(job, on: connection)
        completionTransactionSerial = connection === self.connection ? connection.openTransactionSerial : nil
    }

    /// True when `complete(on:)` completed the job in a transaction of the job's connection that
    /// has committed since (`PostgresConnection.committedTransactionSerial`).
    public var completionCommitted: Bool {
        guard let serial = completionTransactionSerial else { return false }
        return connection.committedTransactionSerial == serial
    }
}

/// Flags of one in-flight job, shared between its job thread, the heartbeat thread and stop().
final class JobFlags: Sendable {
    let shutdown: Atomic<Bool>
    let leaseLost = Atomic<Bool>(false)
    init(shutdown: Bool) { self.shutdown = Atomic(shutdown) }
}
