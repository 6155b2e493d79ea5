import PostgresClient

/// Work the worker runs on a schedule (month-end enqueueing, clean-ups).
///
/// Only the leader runs periodic tasks: the worker whose maintenance connection holds the
/// session advisory lock `WorkerPool.leaderLockKey`. A task runs once when its worker becomes
/// leader (catch-up after downtime) and then every `intervalSeconds`. Leadership can move
/// between workers (a leader dies, its lock goes with its connection), so a task must be
/// idempotent — enqueue with dedup keys or insert under unique keys — which makes its effect
/// exactly-once across any number of workers.
public struct PeriodicTask: Sendable {
    public var name: String
    public var intervalSeconds: Int
    /// Runs on the maintenance connection (no transaction open); open your own transaction.
    public var run: @Sendable (PostgresConnection) throws -> Void

    public init(name: String, intervalSeconds: Int, run: @escaping @Sendable (PostgresConnection) throws -> Void) {
        precondition(intervalSeconds >= 1, "periodic task \(name): interval must be ≥ 1 s")
        self.name = name
        self.intervalSeconds = intervalSeconds
        self.run = run
    }
}
