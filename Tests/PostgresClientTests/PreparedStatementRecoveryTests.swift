import PostgresClient
import PostgresTestSupport
import Testing

/// `executePrepared` when the session lost statements the connection had prepared (DEALLOCATE,
/// DISCARD ALL): prepared again under a new name, at once outside a transaction, at the next call
/// inside one.
@Suite("Prepared statements lost by the session")
struct PreparedStatementRecoveryTests {
    static func serverNames(_ c: PostgresConnection) throws -> [String] {
        try c.query("SELECT name FROM pg_prepared_statements ORDER BY name").map { try $0.string(at: 0) }
    }

    @Test("after DEALLOCATE ALL outside a transaction, the next call prepares the statement again and answers")
    func reprepareOutsideTransaction() throws {
        let database = try TestDatabase.create("prepared_lost_idle")
        defer { database.drop() }
        let c = try PostgresConnection(url: database.url)
        defer { c.close() }
        let sql = "SELECT $1::bigint + 1"
        #expect(try c.queryOnePrepared(sql, [.int(1)])?.int64(at: 0) == 2)
        try c.execute("DEALLOCATE ALL")
        #expect(try Self.serverNames(c).isEmpty)
        #expect(try c.queryOnePrepared(sql, [.int(41)])?.int64(at: 0) == 42)
        #expect(c.preparedStatementCount == 1)
        #expect(try Self.serverNames(c) == ["payrun_stmt_2"])
    }

    @Test("inside a transaction the lost statement fails the statement (26000); after ROLLBACK it is prepared again")
    func reprepareAfterTransaction() throws {
        let database = try TestDatabase.create("prepared_lost_tx")
        defer { database.drop() }
        let c = try PostgresConnection(url: database.url)
        defer { c.close() }
        let sql = "SELECT $1::bigint * 3"
        #expect(try c.queryOnePrepared(sql, [.int(2)])?.int64(at: 0) == 6)
        try c.execute("BEGIN")
        try c.execute("DISCARD PLANS")  // keeps prepared statements: nothing lost
        #expect(try c.queryOnePrepared(sql, [.int(3)])?.int64(at: 0) == 9)
        try c.execute("DEALLOCATE ALL")
        let error = #expect(throws: PostgresError.self) { try c.queryOnePrepared(sql, [.int(4)]) }
        #expect(error?.sqlState == "26000")
        try c.execute("ROLLBACK")
        #expect(try c.queryOnePrepared(sql, [.int(5)])?.int64(at: 0) == 15)
        #expect(try Self.serverNames(c) == ["payrun_stmt_2"])
    }

    @Test("names are never reused: one statement lost, another still held by the server under its old name, no collision")
    func namesNotReused() throws {
        let database = try TestDatabase.create("prepared_lost_one")
        defer { database.drop() }
        let c = try PostgresConnection(url: database.url)
        defer { c.close() }
        let a = "SELECT $1::bigint - 1", b = "SELECT $1::bigint - 2"
        #expect(try c.queryOnePrepared(a, [.int(10)])?.int64(at: 0) == 9)
        #expect(try c.queryOnePrepared(b, [.int(10)])?.int64(at: 0) == 8)
        try c.execute("DEALLOCATE payrun_stmt_1")
        #expect(try c.queryOnePrepared(a, [.int(20)])?.int64(at: 0) == 19)
        #expect(try c.queryOnePrepared(b, [.int(20)])?.int64(at: 0) == 18)
        #expect(c.preparedStatementCount == 2)
        #expect(try Self.serverNames(c) == ["payrun_stmt_2", "payrun_stmt_3", "payrun_stmt_4"])
    }
}
