import PostgresClient
import PostgresTestSupport
import Testing

@Suite("Large selects through a cursor")
struct CursorTests {
    @Test("forEachRow visits every row in batches, with bind parameters, outside a transaction")
    func outsideTransaction() throws {
        let database = try TestDatabase.create("cursor")
        defer { database.drop() }
        let connection = try database.connect()
        var count = 0
        var previous: Int64 = 0
        var ordered = true
        try connection.forEachRow(
            "SELECT g::int8, repeat('x', 10) FROM generate_series(1, $1::int8) g WHERE g % $2::int8 <> 0 ORDER BY g;\n",
            [.int(25_000), .int(2)], batchSize: 1000
        ) { row in
            let value = try row.int64(at: 0)
            if value <= previous { ordered = false }
            previous = value
            count += 1
        }
        #expect(count == 12_500)
        #expect(ordered)
        #expect(!connection.isInTransaction)
    }

    @Test("forEachRow inside a transaction uses it, and the body may run statements between rows")
    func insideTransaction() throws {
        let database = try TestDatabase.create("cursor_tx")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE seen (id int8)")
        try connection.transaction { tx in
            try tx.forEachRow("SELECT g::int8 FROM generate_series(1, 300) g", batchSize: 64) { row in
                try tx.execute("INSERT INTO seen VALUES ($1)", [.int(try row.int64(at: 0))])
            }
            #expect(tx.isInTransaction)
        }
        #expect(try connection.query("SELECT count(*) FROM seen")[0].int64(at: 0) == 300)
        #expect(postgresError { try connection.forEachRow("SELECT 1", batchSize: 0) { _ in } }?.kind == .invalidUsage)
    }

    @Test("an error thrown by the body stops the iteration, rolls back and leaves the connection usable")
    func bodyThrows() throws {
        let database = try TestDatabase.create("cursor_throw")
        defer { database.drop() }
        let connection = try database.connect()
        var seen = 0
        #expect(throws: Refusal.self) {
            try connection.forEachRow("SELECT g FROM generate_series(1, 100) g", batchSize: 10) { _ in
                seen += 1
                if seen == 15 { throw Refusal() }
            }
        }
        #expect(seen == 15)
        #expect(!connection.isInTransaction)
        #expect(try connection.query("SELECT 1::int8").count == 1)
    }
}
