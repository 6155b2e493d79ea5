/// A cursor over the fields of one row of a `COPY … TO STDOUT (FORMAT binary)`, read in
/// column order. It points into libpq's receive buffer (no copy): it is valid only during the
/// `copyOut` closure call that received it, and must not be stored.
///
/// Each read consumes one field and checks its length; reading past the last field, a NULL
/// with a non-optional reader, or a field of the wrong width throws `.copyFormat` /
/// `.decoding`. Fields you do not read are ignored.
public struct BinaryCopyRow {
    @usableFromInline let base: UnsafeRawPointer
    @usableFromInline let byteCount: Int
    @usableFromInline var offset = 0
    /// Number of fields in this row.
    public let fieldCount: Int
    @usableFromInline var nextFieldIndex = 0
    /// Index of the next field to read.
    public var fieldIndex: Int { nextFieldIndex }

    @usableFromInline
    init(base: UnsafeRawPointer, byteCount: Int, fieldCount: Int) {
        self.base = base
        self.byteCount = byteCount
        self.fieldCount = fieldCount
    }

    /// Reads the next field's length (-1 for NULL) and moves past it.
    ///
    /// The offset arithmetic here and in the readers is unchecked (`&+`): `0 ≤ offset ≤ byteCount`
    /// holds throughout, `byteCount` is a message's length (below 2³¹), and a field's length is
    /// added only once it is known to be non-negative and within the row (an overflow check per
    /// addition cost five instructions per field).
    @inlinable @inline(__always)
    mutating func nextLength() throws(PostgresError) -> Int {
        guard offset &+ 4 <= byteCount else { throw Self.rowEnded(field: fieldIndex, of: fieldCount) }
        let length = Int(Int32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
        offset &+= 4
        guard length <= byteCount &- offset else { throw Self.fieldExceedsRow(field: fieldIndex, length: length) }
        nextFieldIndex &+= 1
        return length
    }

    @inlinable @inline(__always)
    mutating func fixed<T: FixedWidthInteger>(_ type: T.Type) throws(PostgresError) -> T {
        let length = try nextLength()
        guard length == MemoryLayout<T>.size else {
            throw Self.lengthMismatch(length, expected: MemoryLayout<T>.size, field: fieldIndex - 1)
        }
        let value = T(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset &+= length
        return value
    }

    /// The errors of `nextLength` (their messages built out of the inlined path).
    @usableFromInline @inline(never)
    static func rowEnded(field: Int, of fieldCount: Int) -> PostgresError {
        .copyFormat("row ended before field \(field) (of \(fieldCount))")
    }

    @usableFromInline @inline(never)
    static func fieldExceedsRow(field: Int, length: Int) -> PostgresError {
        .copyFormat("field \(field) length \(length) exceeds the row")
    }

    @usableFromInline @inline(never)
    static func unexpectedNull(field: Int) -> PostgresError {
        .decoding("field \(field) is NULL; check isNull first")
    }

    /// The error for a NULL or wrongly sized fixed-width field (kept out of the inlined path).
    @usableFromInline @inline(never)
    static func lengthMismatch(_ length: Int, expected: Int, field: Int) -> PostgresError {
        length < 0
            ? .decoding("field \(field) is NULL; check isNull first or use an optional reader")
            : .decoding("field \(field) has \(length) bytes, expected \(expected)")
    }

    /// True if the next field is NULL (does not consume it; call `skip()` or an optional reader).
    @inlinable
    public var isNull: Bool {
        guard offset &+ 4 <= byteCount else { return false }
        return Int32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: Int32.self)) == -1
    }

    /// The bytes of the row from the next field on (length words included), valid as the row is;
    /// looking does not consume anything. For decoding a row of one known layout in one piece: the
    /// caller checks every length word itself, and reads a row that differs with the field readers
    /// instead, which report what is wrong with it.
    @inlinable @inline(__always)
    public var unreadBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + offset, count: byteCount &- offset)
    }

    /// Moves past the next field, whatever it holds.
    @inlinable
    public mutating func skip() throws(PostgresError) {
        let length = try nextLength()
        if length > 0 { offset &+= length }
    }

    /// `smallint`.
    @inlinable @inline(__always) public mutating func int16() throws(PostgresError) -> Int16 { try fixed(Int16.self) }
    /// `integer`.
    @inlinable @inline(__always) public mutating func int32() throws(PostgresError) -> Int32 { try fixed(Int32.self) }
    /// `bigint`.
    @inlinable @inline(__always) public mutating func int64() throws(PostgresError) -> Int64 { try fixed(Int64.self) }
    /// `boolean`.
    @inlinable @inline(__always) public mutating func bool() throws(PostgresError) -> Bool { try fixed(UInt8.self) != 0 }
    /// `date` as days since 2000-01-01.
    @inlinable @inline(__always) public mutating func date() throws(PostgresError) -> Int32 { try fixed(Int32.self) }
    /// `timestamptz` (or `timestamp`) as microseconds since 2000-01-01 00:00 UTC.
    @inlinable @inline(__always) public mutating func timestamptz() throws(PostgresError) -> Int64 { try fixed(Int64.self) }

    /// `text`/`varchar`/`name`/`json` as a String (allocates; see `withTextBytes` to avoid it).
    @inlinable
    public mutating func text() throws(PostgresError) -> String {
        let length = try nextLength()
        guard length >= 0 else { throw Self.unexpectedNull(field: fieldIndex - 1) }
        let text = String(decoding: UnsafeRawBufferPointer(start: base + offset, count: length), as: UTF8.self)
        offset &+= length
        return text
    }

    /// The raw bytes of the next field without copying (nil for NULL), valid only inside `body`.
    @inlinable @inline(__always)
    public mutating func withTextBytes<R>(_ body: (UnsafeRawBufferPointer?) throws(PostgresError) -> R) throws(PostgresError) -> R {
        let length = try nextLength()
        guard length >= 0 else { return try body(nil) }
        let bytes = UnsafeRawBufferPointer(start: base + offset, count: length)
        offset &+= length
        return try body(bytes)
    }

    /// The raw bytes of the next field, which must not be NULL (the same error as `text()`),
    /// without copying, valid only inside `body`: for decoding a text field without a `String`.
    @inlinable @inline(__always)
    public mutating func withNonNullTextBytes<R>(_ body: (UnsafeRawBufferPointer) throws(PostgresError) -> R) throws(PostgresError) -> R {
        let length = try nextLength()
        guard length >= 0 else { throw Self.unexpectedNull(field: fieldIndex - 1) }
        let bytes = UnsafeRawBufferPointer(start: base + offset, count: length)
        offset &+= length
        return try body(bytes)
    }

    /// `bytea` as bytes (copied).
    @inlinable
    public mutating func bytea() throws(PostgresError) -> [UInt8] {
        let length = try nextLength()
        guard length >= 0 else { throw Self.unexpectedNull(field: fieldIndex - 1) }
        let bytes = Array(UnsafeRawBufferPointer(start: base + offset, count: length))
        offset &+= length
        return bytes
    }

    /// The next field, a `bytea` that holds `fieldCount` fields encoded as in a binary COPY row
    /// (each a 4-byte big-endian length, -1 for NULL, then its bytes; no field count in front),
    /// read by `body` with the same readers as a row's fields. The bytes are not copied and are
    /// valid only inside `body`. Throws `.copyFormat` when the field is NULL or when `body` leaves
    /// bytes unread after reading all `fieldCount` fields (a layout the reader does not expect).
    /// Errors of the nested readers number the fields within the nested row.
    @inlinable @inline(__always)
    public mutating func withNestedFields<R>(count fieldCount: Int,
                                             _ body: (inout BinaryCopyRow) throws -> R) throws -> R {
        let length = try nextLength()
        guard length >= 0 else { throw Self.nestedFieldsNull(field: fieldIndex - 1) }
        var nested = BinaryCopyRow(base: base + offset, byteCount: length, fieldCount: fieldCount)
        offset &+= length
        let result = try body(&nested)
        guard nested.nextFieldIndex == fieldCount, nested.offset == length else {
            throw Self.nestedFieldsLeft(field: fieldIndex - 1, read: nested.nextFieldIndex, of: fieldCount,
                                        bytesLeft: length - nested.offset)
        }
        return result
    }

    @usableFromInline @inline(never)
    static func nestedFieldsNull(field: Int) -> PostgresError {
        .copyFormat("field \(field) is NULL; expected a bytea of nested fields")
    }

    @usableFromInline @inline(never)
    static func nestedFieldsLeft(field: Int, read: Int, of fieldCount: Int, bytesLeft: Int) -> PostgresError {
        .copyFormat("field \(field): \(read) of \(fieldCount) nested fields read, \(bytesLeft) bytes left")
    }

    /// Reads the next field with `read`, or returns nil (consuming it) if it is NULL:
    /// `let hours = try row.optional { try $0.int32() }`.
    @inlinable
    public mutating func optional<T>(_ read: (inout BinaryCopyRow) throws -> T) throws -> T? {
        if isNull {
            try skip()
            return nil
        }
        return try read(&self)
    }

    /// A fixed-width field or NULL, with one read of its length (the same errors as `isNull`
    /// followed by `skip()` or the fixed reader).
    @inlinable @inline(__always)
    mutating func optionalFixed<T: FixedWidthInteger>(_ type: T.Type) throws(PostgresError) -> T? {
        let length = try nextLength()
        if length == -1 { return nil }
        guard length == MemoryLayout<T>.size else {
            throw Self.lengthMismatch(length, expected: MemoryLayout<T>.size, field: fieldIndex - 1)
        }
        let value = T(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset &+= length
        return value
    }

    /// `smallint` or NULL.
    @inlinable @inline(__always) public mutating func optionalInt16() throws(PostgresError) -> Int16? { try optionalFixed(Int16.self) }
    /// `integer` or NULL.
    @inlinable @inline(__always) public mutating func optionalInt32() throws(PostgresError) -> Int32? { try optionalFixed(Int32.self) }
    /// `bigint` or NULL.
    @inlinable @inline(__always) public mutating func optionalInt64() throws(PostgresError) -> Int64? { try optionalFixed(Int64.self) }
    /// `boolean` or NULL.
    @inlinable @inline(__always) public mutating func optionalBool() throws(PostgresError) -> Bool? {
        try optionalFixed(UInt8.self).map { $0 != 0 }
    }
    /// `date` (days since 2000-01-01) or NULL.
    @inlinable @inline(__always) public mutating func optionalDate() throws(PostgresError) -> Int32? { try optionalFixed(Int32.self) }
    /// `timestamptz` (µs since 2000-01-01 UTC) or NULL.
    @inlinable @inline(__always) public mutating func optionalTimestamptz() throws(PostgresError) -> Int64? { try optionalFixed(Int64.self) }
    /// `text` or NULL.
    @inlinable public mutating func optionalText() throws(PostgresError) -> String? {
        if isNull { try skip(); return nil }
        return try text()
    }
}
