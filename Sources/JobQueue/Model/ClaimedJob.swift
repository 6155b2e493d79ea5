/// A job this worker holds a lease on. `leaseToken` fences every later write: `complete`,
/// `fail`, `release` and `heartbeat` only act while the job still carries this token.
public struct ClaimedJob: Sendable, Equatable, Hashable {
    public var id: Int64
    public var kind: String
    /// `NewJob.noTenant` (0) for a job without a tenant.
    public var tenantId: Int64
    /// The JSON object as text.
    public var payload: String
    /// 1 on the first attempt (attempts are counted when claimed).
    public var attempt: Int
    public var maxAttempts: Int
    /// A UUID, fresh for every claim.
    public var leaseToken: String
    public var dedupKey: String?

    public init(
        id: Int64, kind: String, tenantId: Int64, payload: String, attempt: Int, maxAttempts: Int,
        leaseToken: String, dedupKey: String?
    ) {
        self.id = id
        self.kind = kind
        self.tenantId = tenantId
        self.payload = payload
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.leaseToken = leaseToken
        self.dedupKey = dedupKey
    }

    /// True when a failure now would be the last attempt.
    public var isLastAttempt: Bool { attempt >= maxAttempts }
}
