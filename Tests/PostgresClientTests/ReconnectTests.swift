import PostgresClient
import PostgresTestSupport
import Testing

/// Terminates `victim`'s backend from another connection and waits until it is gone.
func terminateBackend(of victim: PostgresConnection, using killer: PostgresConnection) throws {
    let terminated = try killer.query("SELECT pg_terminate_backend($1, 5000)", [.int32(victim.backendPID)])
    #expect(try terminated[0].bool(at: 0))
}

@Suite("Connection loss and reconnecting")
struct ReconnectTests {
    @Test("a terminated backend surfaces as connectionLost")
    func connectionLost() throws {
        let database = try TestDatabase.create("conn_lost")
        defer { database.drop() }
        let victim = try database.connect()
        let killer = try database.connect()
        try terminateBackend(of: victim, using: killer)
        let error = postgresError { try victim.execute("SELECT 1") }
        #expect(error?.kind == .connectionLost)
        #expect(!victim.isOpen)
    }

    @Test("reconnect() after a terminated backend gives a working new session")
    func reconnectAfterTermination() throws {
        let database = try TestDatabase.create("reconnect")
        defer { database.drop() }
        let victim = try database.connect()
        let killer = try database.connect()
        let oldPID = victim.backendPID
        try terminateBackend(of: victim, using: killer)
        _ = postgresError { try victim.execute("SELECT 1") }
        try victim.reconnect()
        #expect(victim.isOpen)
        #expect(victim.backendPID != oldPID)
        #expect(try victim.query("SELECT 41 + $1::int8", [1])[0].int64(at: 0) == 42)
    }

    @Test("withRetry reconnects after connection loss and runs the body again")
    func withRetryReconnects() throws {
        let database = try TestDatabase.create("with_retry")
        defer { database.drop() }
        let victim = try database.connect()
        let killer = try database.connect()
        try terminateBackend(of: victim, using: killer)
        var attempts = 0
        let value = try victim.withRetry(PostgresRetryPolicy(attemptsMax: 3, backoffInitial: .milliseconds(10))) { connection in
            attempts += 1
            return try connection.query("SELECT 7::int8")[0].int64(at: 0)
        }
        #expect(value == 7)
        #expect(attempts == 2)
    }

    @Test("withRetry gives up after attemptsMax and throws the last error")
    func withRetryGivesUp() throws {
        let database = try TestDatabase.create("retry_gives_up")
        defer { database.drop() }
        let connection = try database.connect()
        var attempts = 0
        let error = postgresError {
            _ = try connection.withRetry(PostgresRetryPolicy(attemptsMax: 3, backoffInitial: .milliseconds(1), retryableKinds: [.uniqueViolation])) { _ in
                attempts += 1
                throw PostgresError(kind: .uniqueViolation, message: "always", sqlState: "23505")
            }
        }
        #expect(error?.kind == .uniqueViolation)
        #expect(attempts == 3)
        // Non-retryable kinds are thrown at once.
        attempts = 0
        _ = postgresError {
            _ = try connection.withRetry { _ in
                attempts += 1
                throw PostgresError(kind: .checkViolation, message: "no")
            }
        }
        #expect(attempts == 1)
    }
}
