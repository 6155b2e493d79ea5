import Foundation
import PostgresClient
import Testing

/// Work on its own connection and thread, for tests of two transactions racing: start it, make
/// sure it waits (`waitForLockWait`), let the other side commit, then read its result.
final class BackgroundWork<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var stored: Result<T, any Error>?

    /// Starts `body` on a new connection to `url`, in a thread of its own.
    init(url: String, _ body: @escaping @Sendable (PostgresConnection) throws -> T) {
        let thread = Thread { [self] in
            let result: Result<T, any Error>
            do {
                let connection = try PostgresConnection(url: url)
                defer { connection.close() }
                result = .success(try body(connection))
            } catch {
                result = .failure(error)
            }
            lock.lock(); stored = result; lock.unlock()
            done.signal()
        }
        thread.start()
    }

    /// Waits for the work to end and returns its result.
    func result() -> Result<T, any Error> {
        done.wait()
        done.signal()  // later calls return at once
        lock.lock(); defer { lock.unlock() }
        guard let stored else { return .failure(PostgresError(kind: .other, message: "no result")) }
        return stored
    }

    /// The PostgreSQL error the work ended with, if any.
    func postgresError() -> PostgresError? {
        if case .failure(let error) = result() { return error as? PostgresError ?? PostgresError(kind: .other, message: "\(error)") }
        return nil
    }
}

/// Polls until some other backend of `connection`'s database waits for a lock (a row, advisory or
/// relation lock); records an issue naming `who` after 20 seconds.
func waitForLockWait(on connection: PostgresConnection, who: String) throws {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
        // Inside a transaction the activity view is read once and cached: clear it each time.
        try connection.execute("SELECT pg_stat_clear_snapshot()")
        let waiting = try connection.queryOne("""
            SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
            """)?.int64(at: 0) ?? 0
        if waiting > 0 { return }
        usleep(10_000)
    }
    Issue.record("\(who) never waited for the lock")
}
