import PostgresClient

/// One row of `payrun.jobs` as `JobQueue.show` and `JobQueue.list` return it.
public struct JobRecord: Sendable, Equatable {
    public var id: Int64
    public var kind: String
    /// `NewJob.noTenant` (0) for a job without a tenant.
    public var tenantId: Int64
    public var state: String
    public var priority: Int16
    public var attempts: Int
    public var maxAttempts: Int
    public var runAt: PostgresTimestamp
    public var createdAt: PostgresTimestamp
    public var startedAt: PostgresTimestamp?
    public var finishedAt: PostgresTimestamp?
    public var leasedBy: String?
    public var leasedUntil: PostgresTimestamp?
    public var heartbeatAt: PostgresTimestamp?
    public var dedupKey: String?
    /// JSON object text.
    public var payload: String
    /// JSON array text: one object per failed attempt, oldest first
    /// (`attempt`, `at`, `worker`, `message`, `retryable`, …).
    public var errors: String
    /// Number of entries in `errors`.
    public var errorCount: Int
    /// The message of the newest entry in `errors`.
    public var lastError: String?
}

/// Filter for `JobQueue.list`.
public struct JobFilter: Sendable, Equatable {
    public var state: String?
    public var kind: String?
    public var tenantId: Int64?
    /// Newest first; at most this many.
    public var limit: Int

    public init(state: String? = nil, kind: String? = nil, tenantId: Int64? = nil, limit: Int = 50) {
        self.state = state
        self.kind = kind
        self.tenantId = tenantId
        self.limit = limit
    }
}

/// Counts of unfinished jobs (from the partial indexes only, so cheap on a large table).
public struct QueueDepth: Sendable, Equatable {
    /// Pending and due now.
    public var due: Int64
    /// Pending but not yet due (scheduled or backing off).
    public var scheduled: Int64
    public var running: Int64
    /// Running with an expired lease (waiting for rescue).
    public var expired: Int64

    public var pending: Int64 { due + scheduled }

    public init(due: Int64, scheduled: Int64, running: Int64, expired: Int64) {
        self.due = due
        self.scheduled = scheduled
        self.running = running
        self.expired = expired
    }
}

/// What `JobQueue.fail` did.
public enum FailOutcome: Sendable, Equatable {
    /// Pending again, claimable after the backoff delay.
    case retryScheduled
    /// Failed for good (last attempt, or not retryable).
    case failed
    /// A newer pending job with the same dedup key will do the work; this one is `cancelled`.
    case superseded(by: Int64)
}
