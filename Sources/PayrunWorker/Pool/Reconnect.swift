import Foundation
import Logging
import PostgresClient

/// Connection-loss handling shared by every thread of the pool.
enum Reconnect {
    /// True when `error` (or the connection's state) says the connection is gone.
    static func isConnectionLoss(_ error: any Error, connection: PostgresConnection?) -> Bool {
        if let error = error as? PostgresError, error.kind == .connectionLost || error.kind == .connectionFailed {
            return true
        }
        if let connection, !connection.isOpen { return true }
        return false
    }

    /// Opens a connection, retrying with backoff while `keepTrying()`; nil if it gave up.
    static func open(url: String?, logger: Logger, role: String, keepTrying: () -> Bool) -> PostgresConnection? {
        var delayMilliseconds = 100
        while true {
            do {
                return try PostgresConnection(url: url)
            } catch {
                guard keepTrying() else { return nil }
                logger.warning("cannot connect; retrying", metadata: ["thread": "\(role)", "error": "\(error)", "retry_ms": "\(delayMilliseconds)"])
                sleep(milliseconds: delayMilliseconds, while: keepTrying)
                delayMilliseconds = nextDelay(delayMilliseconds)
            }
        }
    }

    /// Reconnects `connection` (its LISTENs are replayed), retrying with backoff while
    /// `keepTrying()`; false if it gave up.
    static func restore(_ connection: PostgresConnection, logger: Logger, role: String, keepTrying: () -> Bool) -> Bool {
        var delayMilliseconds = 100
        while true {
            do {
                try connection.reconnect()
                logger.info("reconnected to PostgreSQL", metadata: ["thread": "\(role)"])
                return true
            } catch {
                guard keepTrying() else { return false }
                logger.warning("connection lost; reconnecting", metadata: ["thread": "\(role)", "error": "\(error)", "retry_ms": "\(delayMilliseconds)"])
                sleep(milliseconds: delayMilliseconds, while: keepTrying)
                delayMilliseconds = nextDelay(delayMilliseconds)
            }
        }
    }

    /// Doubles up to 5 s, with ±25 % jitter so a fleet does not reconnect in step.
    static func nextDelay(_ milliseconds: Int) -> Int {
        let doubled = min(5_000, milliseconds * 2)
        return doubled - doubled / 4 + Int.random(in: 0...(doubled / 2))
    }

    /// Sleeps in 50 ms slices while `condition()` holds.
    static func sleep(milliseconds: Int, while condition: () -> Bool) {
        var left = milliseconds
        while left > 0 && condition() {
            let slice = min(50, left)
            usleep(UInt32(slice) * 1000)
            left -= slice
        }
    }
}
