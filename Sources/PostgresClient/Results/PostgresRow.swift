import CLibPQ

/// One row of a `PostgresResult`. Values arrive in PostgreSQL's text format and are decoded on
/// request into the Swift type you name; a wrong type or an unexpected NULL throws a
/// `PostgresError` of kind `.decoding` naming the column.
///
/// Keeps its result alive. Not `Sendable`.
public struct PostgresRow {
    let result: PostgresResult
    let row: Int32

    /// Number of columns.
    public var columnCount: Int { result.columnCount }

    /// True if the value at `column` is SQL NULL.
    public func isNull(at column: Int) throws(PostgresError) -> Bool {
        try check(column)
        return PQgetisnull(result.handle, row, Int32(column)) == 1
    }

    /// Decodes the value at `column` (0-based). Use an optional type (`Int64?.self`) to accept NULL.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at column: Int) throws(PostgresError) -> T {
        try check(column)
        let handle = result.handle
        let index = Int32(column)
        let cell: PostgresCell
        if PQgetisnull(handle, row, index) == 1 {
            cell = PostgresCell(typeOID: PQftype(handle, index), bytes: nil, columnIndex: column, result: result)
        } else {
            let length = Int(PQgetlength(handle, row, index))
            let pointer = UnsafeRawPointer(PQgetvalue(handle, row, index))
            cell = PostgresCell(
                typeOID: PQftype(handle, index),
                bytes: UnsafeRawBufferPointer(start: pointer, count: length),
                columnIndex: column, result: result)
        }
        return try T.decode(from: cell)
    }

    /// Decodes the value of the column named `name`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws(PostgresError) -> T {
        guard let column = result.columnIndex(named: name) else {
            throw .decoding("no column named '\(name)' (columns: \(result.columnNames.joined(separator: ", ")))")
        }
        return try decode(type, at: column)
    }

    public func string(at column: Int) throws(PostgresError) -> String { try decode(String.self, at: column) }
    public func int64(at column: Int) throws(PostgresError) -> Int64 { try decode(Int64.self, at: column) }
    public func int32(at column: Int) throws(PostgresError) -> Int32 { try decode(Int32.self, at: column) }
    public func int(at column: Int) throws(PostgresError) -> Int { try decode(Int.self, at: column) }
    public func bool(at column: Int) throws(PostgresError) -> Bool { try decode(Bool.self, at: column) }
    public func date(at column: Int) throws(PostgresError) -> PostgresDate { try decode(PostgresDate.self, at: column) }
    public func timestamptz(at column: Int) throws(PostgresError) -> PostgresTimestamp {
        try decode(PostgresTimestamp.self, at: column)
    }
    public func bytea(at column: Int) throws(PostgresError) -> [UInt8] { try decode([UInt8].self, at: column) }

    /// `row[2, Int64.self]` reads like `decode(Int64.self, at: 2)`.
    public subscript<T: PostgresDecodable>(column: Int, type: T.Type) -> T {
        get throws(PostgresError) { try decode(type, at: column) }
    }

    private func check(_ column: Int) throws(PostgresError) {
        guard column >= 0, column < result.columnCount else {
            throw .decoding("column \(column) out of range 0..<\(result.columnCount)")
        }
    }
}
