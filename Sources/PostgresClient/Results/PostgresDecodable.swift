import CLibPQ

/// One value of a result, in PostgreSQL's text format; valid only during `decode(from:)`.
public struct PostgresCell {
    /// The column's type OID (see `PostgresTypeOID`).
    public let typeOID: UInt32
    /// The text bytes, or nil for SQL NULL.
    public let bytes: UnsafeRawBufferPointer?
    public let columnIndex: Int
    let result: PostgresResult

    /// Column name for error messages.
    public var columnName: String {
        guard let name = PQfname(result.handle, Int32(columnIndex)) else { return "#\(columnIndex)" }
        return String(cString: name)
    }

    /// The bytes of a non-NULL value, or a decoding error naming the column.
    public func requireBytes(as typeName: String) throws(PostgresError) -> UnsafeRawBufferPointer {
        guard let bytes else { throw nullError(as: typeName) }
        return bytes
    }

    /// Throws unless the column's type is one of `accepted`.
    public func requireType(_ accepted: [UInt32], as typeName: String) throws(PostgresError) {
        guard accepted.contains(typeOID) else { throw typeError(as: typeName) }
    }

    func nullError(as typeName: String) -> PostgresError {
        .decoding("column '\(columnName)' is NULL; decode as \(typeName)? to accept NULL")
    }

    func typeError(as typeName: String) -> PostgresError {
        .decoding("column '\(columnName)' has type OID \(typeOID), which does not decode as \(typeName)")
    }

    var text: String {
        guard let bytes else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A Swift type that a column value can be decoded into.
public protocol PostgresDecodable {
    static func decode(from cell: PostgresCell) throws(PostgresError) -> Self
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Wrapped? {
        guard cell.bytes != nil else { return nil }
        return try Wrapped.decode(from: cell)
    }
}

extension String: PostgresDecodable {
    /// Any column decodes as its text representation.
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> String {
        String(decoding: try cell.requireBytes(as: "String"), as: UTF8.self)
    }
}

/// Parses a decimal integer in `bytes` into `T`, rejecting overflow and stray characters.
func parseInteger<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, as: T.Type) -> T? {
    var index = 0
    var negative = false
    if bytes.count > 0, bytes[0] == UInt8(ascii: "-") {
        negative = true
        index = 1
    }
    guard index < bytes.count else { return nil }
    var value: T = 0
    while index < bytes.count {
        let digit = bytes[index] &- UInt8(ascii: "0")
        guard digit <= 9 else { return nil }
        let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (next, overflow2) = negative
            ? times10.subtractingReportingOverflow(T(digit)) : times10.addingReportingOverflow(T(digit))
        guard !overflow1, !overflow2 else { return nil }
        value = next
        index += 1
    }
    return value
}

extension PostgresCell {
    /// The type's name is formatted only for an error: `String(describing:)` of a type goes
    /// through runtime reflection (≈ 11,000 instructions under callgrind), which every decoded
    /// integer cell paid before.
    func integer<T: FixedWidthInteger>(_ type: T.Type, accepted: [UInt32]) throws(PostgresError) -> T {
        guard let bytes else { throw nullError(as: String(describing: T.self)) }
        guard accepted.contains(typeOID) else { throw typeError(as: String(describing: T.self)) }
        guard let value = parseInteger(bytes, as: T.self) else {
            throw .decoding("column '\(columnName)' value '\(text)' does not fit \(String(describing: T.self))")
        }
        return value
    }
}

extension Int64: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Int64 {
        try cell.integer(Int64.self, accepted: [PostgresTypeOID.int2, PostgresTypeOID.int4, PostgresTypeOID.int8, PostgresTypeOID.oid])
    }
}

extension Int: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Int {
        try cell.integer(Int.self, accepted: [PostgresTypeOID.int2, PostgresTypeOID.int4, PostgresTypeOID.int8, PostgresTypeOID.oid])
    }
}

extension Int32: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Int32 {
        try cell.integer(Int32.self, accepted: [PostgresTypeOID.int2, PostgresTypeOID.int4])
    }
}

extension Int16: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Int16 {
        try cell.integer(Int16.self, accepted: [PostgresTypeOID.int2])
    }
}

extension Bool: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> Bool {
        let bytes = try cell.requireBytes(as: "Bool")
        try cell.requireType([PostgresTypeOID.bool], as: "Bool")
        guard bytes.count == 1 else { throw .decoding("column '\(cell.columnName)' is not a boolean: '\(cell.text)'") }
        switch bytes[0] {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw .decoding("column '\(cell.columnName)' is not a boolean: '\(cell.text)'")
        }
    }
}

extension PostgresDate: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> PostgresDate {
        _ = try cell.requireBytes(as: "PostgresDate")
        try cell.requireType([PostgresTypeOID.date], as: "PostgresDate")
        return try PostgresDate(iso: cell.text)
    }
}

extension PostgresTimestamp: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> PostgresTimestamp {
        _ = try cell.requireBytes(as: "PostgresTimestamp")
        try cell.requireType([PostgresTypeOID.timestamptz], as: "PostgresTimestamp (timestamptz)")
        return try PostgresTimestamp(iso: cell.text)
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// `bytea` in either output format (hex or escape).
    public static func decode(from cell: PostgresCell) throws(PostgresError) -> [UInt8] {
        let bytes = try cell.requireBytes(as: "[UInt8]")
        try cell.requireType([PostgresTypeOID.bytea], as: "[UInt8] (bytea)")
        // The text value is NUL-terminated by libpq.
        guard let base = bytes.baseAddress else { return [] }
        var length = 0
        guard let decoded = PQunescapeBytea(base.assumingMemoryBound(to: UInt8.self), &length) else {
            throw .decoding("column '\(cell.columnName)' is not valid bytea text")
        }
        defer { PQfreemem(decoded) }
        return Array(UnsafeBufferPointer(start: decoded, count: length))
    }
}
