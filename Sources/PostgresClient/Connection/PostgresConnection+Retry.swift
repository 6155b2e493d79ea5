#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `withRetry` retries.
public struct PostgresRetryPolicy: Sendable {
    /// Total attempts including the first (at least 1).
    public var attemptsMax: Int
    /// Wait before the second attempt; doubled each time up to `backoffMax`.
    public var backoffInitial: Duration
    public var backoffMax: Duration
    /// Error kinds that trigger a retry. `.connectionLost` / `.connectionFailed` also reconnect.
    public var retryableKinds: Set<PostgresError.Kind>

    public init(
        attemptsMax: Int = 5, backoffInitial: Duration = .milliseconds(50), backoffMax: Duration = .seconds(2),
        retryableKinds: Set<PostgresError.Kind> = [.connectionLost, .connectionFailed]
    ) {
        self.attemptsMax = max(1, attemptsMax)
        self.backoffInitial = backoffInitial
        self.backoffMax = backoffMax
        self.retryableKinds = retryableKinds
    }

    /// Connection loss only (the default).
    public static let reconnect = PostgresRetryPolicy()
    /// Connection loss, serialization failures and deadlocks: for bodies that are one whole
    /// transaction.
    public static let transient = PostgresRetryPolicy(
        retryableKinds: [.connectionLost, .connectionFailed, .serializationFailure, .deadlock])
}

extension PostgresConnection {
    /// Runs `body`, and if it fails with a retryable `PostgresError` (by default a lost
    /// connection), waits with exponential backoff, reconnects if the connection is gone, and
    /// runs it again, up to `policy.attemptsMax` attempts; then the last error is thrown.
    ///
    /// `body` must be safe to repeat: make it one transaction (a lost connection during
    /// `COMMIT` leaves it unknown whether the commit happened, so the work must be idempotent
    /// or fenced, e.g. by a job lease).
    public func withRetry<T>(_ policy: PostgresRetryPolicy = .reconnect, _ body: (PostgresConnection) throws -> T) throws -> T {
        var backoff = policy.backoffInitial
        var attempt = 1
        while true {
            do {
                if !isOpen { try reconnect() }
                return try body(self)
            } catch let error as PostgresError where policy.retryableKinds.contains(error.kind) && attempt < policy.attemptsMax {
                attempt += 1
                Self.sleep(backoff)
                backoff = min(backoff * 2, policy.backoffMax)
                if error.kind == .connectionLost || error.kind == .connectionFailed {
                    // Reconnect on the next iteration (isOpen is false), or now if libpq has not
                    // noticed yet (e.g. 57P01 admin shutdown sent before the socket closed).
                    if isOpen { try? reconnect() }
                }
            }
        }
    }

    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1, errno == EINTR {
            request = remaining
        }
    }
}
