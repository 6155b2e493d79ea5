import PostgresClient

/// A job to enqueue. `payload` is a JSON object as text (stored as `jsonb`).
public struct NewJob: Sendable, Equatable {
    /// Dotted lower-case words, e.g. `run.chunk`, `employee.recalc` (checked by the table).
    public var kind: String
    /// The tenant the job works for. `NewJob.noTenant` (0) stores NULL: a maintenance job.
    public var tenantId: Int64
    /// A JSON object as text.
    public var payload: String
    /// At most one *pending* job per key: enqueueing again while one is pending returns that job
    /// (`EnqueueOutcome.deduplicated`). Jobs with the same key never run at the same time.
    public var dedupKey: String?
    /// Lower runs first; 0 is the most urgent, 100 the table's default, 1000 the least urgent.
    public var priority: Int16
    /// Not claimable before `now() + runAfterSeconds` (ignored when `runAt` is set).
    public var runAfterSeconds: Int
    /// Not claimable before this instant; wins over `runAfterSeconds`.
    public var runAt: PostgresTimestamp?
    /// Attempts before the job is `failed` for good (1...100).
    public var maxAttempts: Int

    /// `tenantId` value meaning "no tenant" (stored as NULL; such jobs are claimed as group 0).
    public static let noTenant: Int64 = 0

    public init(
        kind: String, tenantId: Int64, payload: String = "{}", dedupKey: String? = nil, priority: Int16 = 100,
        runAfterSeconds: Int = 0, runAt: PostgresTimestamp? = nil, maxAttempts: Int = 5
    ) {
        self.kind = kind
        self.tenantId = tenantId
        self.payload = payload
        self.dedupKey = dedupKey
        self.priority = priority
        self.runAfterSeconds = runAfterSeconds
        self.runAt = runAt
        self.maxAttempts = maxAttempts
    }
}
