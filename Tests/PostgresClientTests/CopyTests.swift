import PostgresClient
import PostgresTestSupport
import Testing

/// One deterministic row of the COPY round-trip table; every column type the writer and reader
/// support, with NULLs in a pattern.
struct SampleRow: Equatable {
    var id: Int64
    var small: Int16
    var count: Int32?
    var flag: Bool
    var day: Int32
    var instant: Int64
    var name: String?
    var raw: [UInt8]

    init(_ id: Int64) {
        self.id = id
        small = Int16(truncatingIfNeeded: id * 7)
        count = id % 5 == 0 ? nil : Int32(truncatingIfNeeded: id &* 2_654_435_761)
        flag = id % 3 == 0
        day = Int32(id % 20_000) - 10_000
        instant = id &* 1_000_003 - 5_000_000_000
        name = id % 7 == 0 ? nil : (id % 2 == 0 ? "직원 \(id) '\"\\" : "emp\(id)")
        raw = id % 11 == 0 ? [] : [UInt8(truncatingIfNeeded: id), 0, 255]
    }
}

let sampleTableSQL = """
    CREATE TABLE sample (id int8 PRIMARY KEY, small int2 NOT NULL, count int4, flag bool NOT NULL,
                         day date NOT NULL, instant timestamptz NOT NULL, name text, raw bytea NOT NULL)
    """

@Suite("Binary COPY")
struct CopyTests {
    @Test("100,000 rows of every supported type, with NULLs, round-trip through binary COPY in and out")
    func roundTrip() throws {
        let database = try TestDatabase.create("copy_roundtrip")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute(sampleTableSQL)
        let rowCount: Int64 = 100_000
        let stored = try connection.copyIn("COPY sample FROM STDIN (FORMAT binary)", flushThresholdBytes: 64 * 1024) { writer in
            for id in 1...rowCount {
                let row = SampleRow(id)
                try writer.row {
                    $0.int64(row.id)
                    $0.int16(row.small)
                    $0.int32(row.count)
                    $0.bool(row.flag)
                    $0.date(daysSince2000: row.day)
                    $0.timestamptz(microsecondsSince2000: row.instant)
                    $0.text(row.name)
                    $0.bytea(row.raw)
                }
            }
            #expect(writer.rowCount == Int(rowCount))
        }
        #expect(stored == Int(rowCount))
        // The server sees the values we meant (checked with SQL, independent of our reader).
        let check = try #require(try connection.queryOne("""
            SELECT count(*), count(count), count(name), sum(small)::int8, min(day)::text,
                   (SELECT instant FROM sample WHERE id = 1), (SELECT name FROM sample WHERE id = 2)
            FROM sample
            """))
        #expect(try check.int64(at: 0) == rowCount)
        #expect(try check.int64(at: 1) == rowCount - rowCount / 5)
        #expect(try check.int64(at: 2) == rowCount - rowCount / 7)
        #expect(try check.int64(at: 3) == (1...rowCount).reduce(0) { $0 + Int64(SampleRow($1).small) })
        #expect(try check.string(at: 4) == PostgresDate(daysSince2000: -10_000).description)
        #expect(try check.timestamptz(at: 5).microsecondsSince2000 == SampleRow(1).instant)
        #expect(try check.string(at: 6) == SampleRow(2).name)

        let (read, expectedID, mismatches) = try readBackSampleRows(connection)
        #expect(read == Int(rowCount))
        #expect(expectedID == rowCount)
        #expect(mismatches == 0)
    }

    @Test("withNestedFields reads a bytea of binary COPY fields with the field readers; NULL or unread bytes are errors")
    func nestedFields() throws {
        let database = try TestDatabase.create("copy_nested")
        defer { database.drop() }
        let connection = try database.connect()
        // The fields (int8 7, NULL, text 'é\\x', bool true) as a binary COPY row would carry them.
        let nested = "'\\x00000008'::bytea || int8send(7) || '\\xffffffff'::bytea || int4send(octet_length('é\\x')) || convert_to('é\\x', 'UTF8') || '\\x00000001'::bytea || boolsend(true)"
        var read: [String] = []
        _ = try connection.copyOut("COPY (SELECT 1::int8, \(nested), 2::int4) TO STDOUT (FORMAT binary)") { row in
            read.append(String(try row.int64()))
            try row.withNestedFields(count: 4) { f in
                read.append(String(try f.int64()))
                read.append(f.isNull ? "NULL" : "?")
                try f.skip()
                read.append(try f.text())
                read.append(String(try f.bool()))
            }
            read.append(String(try row.int32()))
        }
        #expect(read == ["1", "7", "NULL", "é\\x", "true", "2"])

        // Fewer fields read than the layout holds, a NULL field, and a count beyond the bytes.
        func failure(_ sql: String, count: Int, reading: Int) -> PostgresError? {
            do {
                _ = try connection.copyOut("COPY (SELECT \(sql)) TO STDOUT (FORMAT binary)") { row in
                    try row.withNestedFields(count: count) { f in for _ in 0..<reading { try f.skip() } }
                }
                return nil
            } catch let error as PostgresError {
                return error
            } catch {
                return nil
            }
        }
        for (sql, count, reading) in [(nested, 4, 3), ("NULL::bytea", 4, 0), (nested, 5, 5)] {
            let error = failure(sql, count: count, reading: reading)
            #expect(error?.kind == .copyFormat, "\(sql), \(reading) of \(count) fields read: \(String(describing: error))")
        }
        // The connection is usable afterwards.
        #expect(try connection.queryOne("SELECT 1")?.int64(at: 0) == 1)
    }

    @Test("copyOut streams: each row is handled in the callback, nothing is collected")
    func streamingCallback() throws {
        let database = try TestDatabase.create("copy_stream")
        defer { database.drop() }
        let connection = try database.connect()
        var sum: Int64 = 0
        var rows = 0
        var nulls = 0
        let count = try connection.copyOut("""
            COPY (SELECT g::int8, CASE WHEN g % 10 = 0 THEN NULL ELSE g::int4 END FROM generate_series(1, 1000000) g)
            TO STDOUT (FORMAT binary)
            """) { row in
            sum &+= try row.int64()
            if row.isNull { nulls += 1 }
            try row.skip()
            rows += 1
        }
        #expect(count == 1_000_000)
        #expect(rows == 1_000_000)
        #expect(nulls == 100_000)
        #expect(sum == 500_000_500_000)
    }

    @Test("a constraint violated by COPY data surfaces the server's error and stores nothing")
    func copyInConstraintError() throws {
        let database = try TestDatabase.create("copy_error")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE pay (id int8 PRIMARY KEY, wage_won int8 NOT NULL CHECK (wage_won >= 0))")
        let check = postgresError {
            try connection.copyIn("COPY pay FROM STDIN (FORMAT binary)") { writer in
                for id in 1...10_000 as ClosedRange<Int64> {
                    try writer.row { $0.int64(id); $0.int64(id == 5_000 ? -1 : id) }
                }
            }
        }
        #expect(check?.kind == .checkViolation)
        let duplicate = postgresError {
            try connection.copyIn("COPY pay FROM STDIN (FORMAT binary)") { writer in
                try writer.row { $0.int64(1); $0.int64(1) }
                try writer.row { $0.int64(1); $0.int64(2) }
            }
        }
        #expect(duplicate?.kind == .uniqueViolation)
        let wrongType = postgresError {
            try connection.copyIn("COPY pay FROM STDIN (FORMAT binary)") { writer in
                try writer.row { $0.int32(1); $0.int64(1) }
            }
        }
        #expect(wrongType != nil)
        #expect(try connection.query("SELECT count(*) FROM pay")[0].int64(at: 0) == 0)
    }

    @Test("a client error inside copyIn aborts the COPY; inside copyOut cancels it; the connection stays usable")
    func clientAbort() throws {
        let database = try TestDatabase.create("copy_abort")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE t (id int8)")
        #expect(throws: Refusal.self) {
            try connection.copyIn("COPY t FROM STDIN (FORMAT binary)") { writer in
                for id in 1...1000 as ClosedRange<Int64> { try writer.row { $0.int64(id) } }
                throw Refusal()
            }
        }
        #expect(try connection.query("SELECT count(*) FROM t")[0].int64(at: 0) == 0)
        var seen = 0
        #expect(throws: Refusal.self) {
            try connection.copyOut("COPY (SELECT g FROM generate_series(1, 5000000) g) TO STDOUT (FORMAT binary)") { _ in
                seen += 1
                if seen == 10 { throw Refusal() }
            }
        }
        #expect(seen == 10)
        #expect(try connection.query("SELECT 1::int8")[0].int64(at: 0) == 1)
    }

    @Test("rows encoded as for COPY and sent as one binary array per column come back as the same rows from unnest; the null flag is set per column")
    func columnArraysRoundTrip() throws {
        let database = try TestDatabase.create("copy_column_arrays")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute(sampleTableSQL)
        // The sample table's columns: (element type, array type) OIDs.
        let types: [(element: UInt32, array: UInt32)] = [
            (PostgresTypeOID.int8, PostgresTypeOID.int8Array), (PostgresTypeOID.int2, 1005),
            (PostgresTypeOID.int4, PostgresTypeOID.int4Array), (PostgresTypeOID.bool, 1000),
            (PostgresTypeOID.date, 1182), (PostgresTypeOID.timestamptz, 1185),
            (PostgresTypeOID.text, PostgresTypeOID.textArray), (PostgresTypeOID.bytea, PostgresTypeOID.byteaArray)]
        let sql = "INSERT INTO sample SELECT * FROM unnest($1::int8[], $2::int2[], $3::int4[], $4::bool[], $5::date[], $6::timestamptz[], $7::text[], $8::bytea[])"
        func insert(_ ids: [Int64]) throws -> (rows: Int, arrays: [[UInt8]]) {
            let buffer = BinaryCopyRowBuffer(initialCapacityBytes: 64)  // grows while encoding
            for id in ids {
                let row = SampleRow(id)
                buffer.row {
                    $0.int64(row.id); $0.int16(row.small); $0.int32(row.count); $0.bool(row.flag)
                    $0.date(daysSince2000: row.day); $0.timestamptz(microsecondsSince2000: row.instant)
                    $0.text(row.name); $0.bytea(row.raw)
                }
            }
            let arrays = buffer.columnArrays(elementTypes: types.map(\.element))
            let values = zip(arrays, types).map { PostgresValue.binary(type: $1.array, bytes: $0) }
            return (try connection.executePrepared(sql, values).affectedRowCount ?? -1, arrays)
        }
        let (rows, arrays) = try insert(Array(1...3_000))
        #expect(rows == 3_000)
        // Header: one dimension, the null flag, the element type, 3,000 elements from index 1.
        func header(_ array: [UInt8]) -> [Int32] {
            (0..<5).map { k in array[(4 * k)..<(4 * k + 4)].reduce(Int32(0)) { $0 << 8 | Int32($1) } }
        }
        #expect(header(arrays[0]) == [1, 0, Int32(PostgresTypeOID.int8), 3_000, 1])
        #expect(header(arrays[2]) == [1, 1, Int32(PostgresTypeOID.int4), 3_000, 1])   // count: NULL every 5th
        #expect(header(arrays[6])[1] == 1 && header(arrays[7])[1] == 0)                // name has NULLs, raw none
        #expect(try insert([]).rows == 0)                                                // empty arrays: no row
        let (_, expectedID, mismatches) = try readBackSampleRows(connection)
        #expect(expectedID == 3_000 && mismatches == 0)
    }

    @Test("values larger than the send buffer are written whole (the buffer grows)")
    func largeValues() throws {
        let database = try TestDatabase.create("copy_large")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE blobs (id int8, body text, raw bytea)")
        let body = String(repeating: "가나다라", count: 200_000) // 2.4 MB of UTF-8
        let raw = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try connection.copyIn("COPY blobs FROM STDIN (FORMAT binary)", flushThresholdBytes: 4096) { writer in
            for id in 1...3 as ClosedRange<Int64> {
                try writer.row { $0.int64(id); $0.text(body); $0.bytea(raw) }
            }
        }
        var checked = 0
        try connection.copyOut("COPY (SELECT id, body, raw FROM blobs ORDER BY id) TO STDOUT (FORMAT binary)") { row in
            checked += 1
            let id = try row.int64()
            let text = try row.text()
            let bytes = try row.bytea()
            #expect(id == Int64(checked))
            #expect(text == body)
            #expect(bytes == raw)
        }
        #expect(checked == 3)
    }

    @Test("copyOut reads rows around and beyond its 64 KiB message buffer whole, in order")
    func rowsAroundTheReadBuffer() throws {
        let database = try TestDatabase.create("copy_read_buffer")
        defer { database.drop() }
        let connection = try database.connect()
        // A row message is 2 + 4 + 8 + 4 + n bytes: n = 65,518 fills the 64 KiB buffer exactly.
        // Each length comes several times, so that some rows are already received whole when read.
        let lengths = [1, 65_516, 65_517, 65_518, 65_519, 65_520, 131_054, 131_055, 200_000, 3]
        var expected: [(Int64, Int)] = []
        for round in 0..<4 { for (k, n) in lengths.enumerated() { expected.append((Int64(round * 100 + k), n)) } }
        let values = expected.map { "(\($0.0), \($0.1))" }.joined(separator: ",")
        var seen = 0
        let count = try connection.copyOut("""
            COPY (SELECT id::int8, repeat(chr(97 + (id % 26)::int), n) FROM (VALUES \(values)) AS v(id, n) ORDER BY id)
            TO STDOUT (FORMAT binary)
            """) { row in
            let (id, n) = expected[seen]
            #expect(try row.int64() == id)
            let text = try row.text()
            #expect(text.utf8.count == n)
            #expect(text.utf8.allSatisfy { $0 == UInt8(97 + id % 26) })
            #expect(row.fieldIndex == row.fieldCount)
            seen += 1
        }
        #expect(count == expected.count)
        #expect(seen == expected.count)
    }

    @Test("COPY in text format or the wrong direction is refused with invalidUsage")
    func misuse() throws {
        let database = try TestDatabase.create("copy_misuse")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE t (id int8)")
        #expect(postgresError { try connection.copyIn("COPY t FROM STDIN") { _ in } }?.kind == .invalidUsage)
        #expect(postgresError { try connection.copyOut("COPY t FROM STDIN (FORMAT binary)") { _ in } }?.kind == .invalidUsage)
        #expect(postgresError { try connection.copyOut("SELECT 1") { _ in } }?.kind == .invalidUsage)
        #expect(postgresError { try connection.execute("COPY t TO STDOUT") }?.kind == .invalidUsage)
        #expect(try connection.query("SELECT 1::int8")[0].int64(at: 0) == 1)
        let empty = try connection.copyOut("COPY t TO STDOUT (FORMAT binary)") { _ in Issue.record("no rows expected") }
        #expect(empty == 0)
    }
}

struct SampleRowDecoded {
    var row: SampleRow
    init(id: Int64, small: Int16, count: Int32?, flag: Bool, day: Int32, instant: Int64, name: String?, raw: [UInt8]) {
        row = SampleRow(id)
        row.small = small
        row.count = count
        row.flag = flag
        row.day = day
        row.instant = instant
        row.name = name
        row.raw = raw
    }
}

/// COPYs the sample table out in id order and compares each row with `SampleRow(id)`: the rows
/// read, the last id expected, and how many rows differed (each row must have the 8 columns).
func readBackSampleRows(_ connection: PostgresConnection) throws -> (read: Int, expectedID: Int64, mismatches: Int) {
    var expectedID: Int64 = 0
    var mismatches = 0
    let read = try connection.copyOut("COPY (SELECT * FROM sample ORDER BY id) TO STDOUT (FORMAT binary)") { row in
        expectedID += 1
        #expect(row.fieldCount == 8)
        let decoded = SampleRowDecoded(
            id: try row.int64(), small: try row.int16(), count: try row.optional { try $0.int32() },
            flag: try row.bool(), day: try row.date(), instant: try row.timestamptz(),
            name: try row.optionalText(), raw: try row.bytea())
        if decoded.row != SampleRow(expectedID) { mismatches += 1 }
    }
    return (read, expectedID, mismatches)
}
