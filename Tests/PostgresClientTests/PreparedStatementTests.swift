import PostgresClient
import PostgresTestSupport
import Testing

@Suite("Prepared statements")
struct PreparedStatementTests {
    @Test("a statement is prepared once per SQL text and parameter types, then reused with new values")
    func preparedOnceAndReused() throws {
        let database = try TestDatabase.create("prepared_reuse")
        defer { database.drop() }
        let connection = try PostgresConnection(url: database.url)
        defer { connection.close() }
        let sql = "SELECT $1::bigint * 2, $2::text"
        for n in Int64(1)...5 {
            let row = try #require(try connection.queryOnePrepared(sql, [.int(n), .text("v\(n)")]))
            #expect(try row.int64(at: 0) == n * 2)
            #expect(try row.string(at: 1) == "v\(n)")
        }
        #expect(connection.preparedStatementCount == 1)
        let onServer = try #require(try connection.queryOne(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement = $1", [.text(sql)])).int64(at: 0)
        #expect(onServer == 1)
        // Same text, other parameter types (a NULL is sent untyped): a second statement.
        let row = try #require(try connection.queryOnePrepared(sql, [.null, .text("x")]))
        #expect(try row.decode(Int64?.self, at: 0) == nil)
        #expect(connection.preparedStatementCount == 2)
        // Another text: a third.
        #expect(try connection.queryPrepared("SELECT generate_series(1, $1::int)", [.int(3)]).count == 3)
        #expect(connection.preparedStatementCount == 3)
    }

    @Test("a statement that fails to prepare throws and is not cached; reconnect drops the cache")
    func failuresAndReconnect() throws {
        let database = try TestDatabase.create("prepared_failure")
        defer { database.drop() }
        let connection = try PostgresConnection(url: database.url)
        defer { connection.close() }
        #expect(throws: PostgresError.self) { try connection.executePrepared("SELECT nope FROM nowhere WHERE x = $1", [.int(1)]) }
        #expect(connection.preparedStatementCount == 0)
        // A prepared statement survives a rolled-back transaction (it is session state).
        try connection.execute("BEGIN")
        #expect(try connection.queryOnePrepared("SELECT ($1::int + 1)::bigint", [.int32(41)])?.int64(at: 0) == 42)
        try connection.execute("ROLLBACK")
        #expect(try connection.queryOnePrepared("SELECT ($1::int + 1)::bigint", [.int32(1)])?.int64(at: 0) == 2)
        #expect(connection.preparedStatementCount == 1)
        try connection.reconnect()
        #expect(connection.preparedStatementCount == 0)
        #expect(try connection.queryOnePrepared("SELECT ($1::int + 1)::bigint", [.int32(2)])?.int64(at: 0) == 3)
        #expect(connection.preparedStatementCount == 1)
    }
}
