import PostgresClient
import PostgresTestSupport
import Testing

/// `executeOncePerSession`: a statement run once per server session of a connection.
@Suite("Statements run once per session")
struct SessionOnceTests {
    static func counter(_ c: PostgresConnection) throws -> Int64 {
        try c.queryOne("SELECT last_value FROM session_once_runs")?.int64(at: 0) ?? -1
    }

    @Test("runs the first time only; again after reconnect(); keys are separate")
    func onceUntilReconnect() throws {
        let database = try TestDatabase.create("session_once")
        defer { database.drop() }
        let c = try PostgresConnection(url: database.url)
        defer { c.close() }
        try c.execute("CREATE SEQUENCE session_once_runs START 1")
        let bump = "SELECT nextval('session_once_runs')"
        #expect(try c.executeOncePerSession(key: "a", bump))
        #expect(try !c.executeOncePerSession(key: "a", bump))
        #expect(try Self.counter(c) == 1)
        #expect(try c.executeOncePerSession(key: "b", bump))
        #expect(try Self.counter(c) == 2)
        try c.reconnect()
        #expect(try c.executeOncePerSession(key: "a", bump))
        #expect(try !c.executeOncePerSession(key: "a", bump))
        #expect(try Self.counter(c) == 3)
    }

    @Test("a failing statement is not recorded as run: the next call runs it again")
    func failureNotRecorded() throws {
        let database = try TestDatabase.create("session_once_fail")
        defer { database.drop() }
        let c = try PostgresConnection(url: database.url)
        defer { c.close() }
        #expect(throws: PostgresError.self) { try c.executeOncePerSession(key: "t", "SELECT 1 FROM session_once_missing") }
        try c.execute("CREATE TABLE session_once_missing (x int)")
        #expect(try c.executeOncePerSession(key: "t", "SELECT 1 FROM session_once_missing"))
    }
}
