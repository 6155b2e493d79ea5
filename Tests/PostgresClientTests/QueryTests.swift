import PostgresClient
import PostgresTestSupport
import Testing

@Suite("Parameterized queries and typed rows")
struct QueryTests {
    @Test("every PostgresValue round-trips through a typed table, including NULL")
    func valuesRoundTrip() throws {
        let database = try TestDatabase.create("roundtrip")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("""
            CREATE TABLE t (b bool, s int2, i int4, l int8, txt text, d date, ts timestamptz, raw bytea,
                            ids int8[], names text[])
            """)
        let date = try PostgresDate(year: 2026, month: 2, day: 28)
        let instant = try PostgresTimestamp(year: 2026, month: 11, day: 22, hour: 3, minute: 4, second: 5, microsecond: 123_456)
        let bytes: [UInt8] = [0, 1, 2, 255, 0x5C, 0x27]
        try connection.execute(
            "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            [.bool(true), .int16(-32768), .int32(Int32.max), .int(Int64.min), .text("주휴수당 ✓ 'quoted' \"dq\""),
             .date(date), .timestamptz(instant), .bytea(bytes), .int64Array([1, -2, Int64.max]),
             .textArray(["a,b", "c\"d", "e\\f", "NULL"])])
        try connection.execute("INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                               Array(repeating: .null, count: 10))
        let rows = try connection.query("SELECT * FROM t ORDER BY b NULLS LAST")
        #expect(rows.count == 2)
        let row = rows[0]
        #expect(try row.bool(at: 0) == true)
        #expect(try row.decode(Int16.self, at: 1) == -32768)
        #expect(try row.int32(at: 2) == Int32.max)
        #expect(try row.int64(at: 3) == Int64.min)
        #expect(try row.string(at: 4) == "주휴수당 ✓ 'quoted' \"dq\"")
        #expect(try row.date(at: 5) == date)
        #expect(try row.timestamptz(at: 6) == instant)
        #expect(try row.bytea(at: 7) == bytes)
        let ids = try #require(try connection.queryOne("SELECT ids[3], names[2], names[4], array_length(names, 1) FROM t WHERE b"))
        #expect(try ids.int64(at: 0) == Int64.max)
        #expect(try ids.string(at: 1) == "c\"d")
        #expect(try ids.string(at: 2) == "NULL")
        #expect(try ids.int(at: 3) == 4)
        let nulls = rows[1]
        for column in 0..<10 {
            #expect(try nulls.isNull(at: column))
        }
        #expect(try nulls.decode(Int64?.self, at: 3) == nil)
        #expect(try nulls.decode(String?.self, at: 4) == nil)
        #expect(try nulls.decode(PostgresDate?.self, at: 5) == nil)
    }

    @Test("SQL-injection-shaped strings are stored verbatim, not executed")
    func injectionShapedStrings() throws {
        let database = try TestDatabase.create("injection")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE names (name text NOT NULL)")
        let hostile = ["'); DROP TABLE names; --", "\\'; SELECT pg_sleep(10); --", "$1", "' OR '1'='1", "\0".isEmpty ? "" : "x"]
        for name in hostile {
            try connection.execute("INSERT INTO names VALUES ($1)", [.text(name)])
        }
        let stored = try connection.query("SELECT name FROM names").map { try $0.string(at: 0) }
        #expect(stored.sorted() == hostile.sorted())
        let matched = try connection.query("SELECT count(*) FROM names WHERE name = $1", ["' OR '1'='1"])
        #expect(try matched[0].int64(at: 0) == 1)
    }

    @Test("text parameters take the type the context needs (enum, jsonb, numeric)")
    func inferredTextParameters() throws {
        let database = try TestDatabase.create("inferred")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TYPE mood AS ENUM ('ok', 'sad')")
        try connection.execute("CREATE TABLE t (m mood, j jsonb, n numeric(12,2))")
        try connection.execute("INSERT INTO t VALUES ($1, $2, $3)", ["sad", "{\"a\": 1}", "12.50"])
        let row = try #require(try connection.queryOne("SELECT m, j->>'a', n FROM t"))
        #expect(try row.string(at: 0) == "sad")
        #expect(try row.string(at: 1) == "1")
        #expect(try row.string(at: 2) == "12.50")
    }

    @Test("decoding the wrong type or a NULL throws a decoding error naming the column")
    func typedDecodeErrors() throws {
        let database = try TestDatabase.create("decode_errors")
        defer { database.drop() }
        let connection = try database.connect()
        let row = try #require(try connection.queryOne(
            "SELECT 'abc'::text AS word, NULL::int8 AS missing, 3000000000::int8 AS big, 1 AS one"))
        func kind(_ body: () throws -> Void) -> PostgresError.Kind? {
            do { try body() } catch let error as PostgresError { return error.kind } catch { return nil }
            return nil
        }
        #expect(kind { _ = try row.int64(at: 0) } == .decoding)
        #expect(kind { _ = try row.int64(at: 1) } == .decoding)
        #expect(kind { _ = try row.int32(at: 2) } == .decoding)
        #expect(kind { _ = try row.bool(at: 3) } == .decoding)
        #expect(kind { _ = try row.date(at: 0) } == .decoding)
        #expect(kind { _ = try row.int64(at: 9) } == .decoding)
        #expect(kind { _ = try row.decode(Int64.self, column: "nope") } == .decoding)
        #expect(try row.decode(Int64.self, column: "big") == 3_000_000_000)
        do {
            _ = try row.int64(at: 1)
        } catch {
            #expect(error.message.contains("missing"))
        }
    }

    @Test("affected row counts, command tags and scripts of several statements")
    func resultMetadata() throws {
        let database = try TestDatabase.create("metadata")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.executeScript("""
            CREATE TABLE t (id int8 PRIMARY KEY);
            INSERT INTO t SELECT generate_series(1, 5);
            """)
        let updated = try connection.execute("UPDATE t SET id = id + 10 WHERE id > $1", [.int(2)])
        #expect(updated.affectedRowCount == 3)
        #expect(updated.commandTag == "UPDATE 3")
        let result = try connection.execute("SELECT id AS \"Ident\" FROM t ORDER BY id")
        #expect(result.columnNames == ["Ident"])
        #expect(try result.map { try $0.decode(Int64.self, column: "Ident") } == [1, 2, 13, 14, 15])
        #expect(throws: PostgresError.self) { try connection.executeScript("SELECT 1; SELECT nope;") }
    }

    @Test("PostgresIdentifier.quoted makes any name a safe identifier")
    func quotedIdentifiers() throws {
        let database = try TestDatabase.create("identifiers")
        defer { database.drop() }
        let connection = try database.connect()
        let name = "pay\"slip; DROP TABLE x; --"
        try connection.execute("CREATE TABLE \(try PostgresIdentifier.quoted(name)) (id int8)")
        let found = try connection.query("SELECT count(*) FROM pg_class WHERE relname = $1", [.text(name)])
        #expect(try found[0].int64(at: 0) == 1)
        #expect(postgresError { _ = try PostgresIdentifier.quoted("") }?.kind == .invalidUsage)
    }
}
