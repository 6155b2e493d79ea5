/// A bind parameter (`$1`, `$2`, ...). Values travel separately from the SQL text, so strings
/// never need escaping and cannot inject SQL.
///
/// Integers, booleans, dates, timestamps and bytea are sent in binary with their exact type;
/// `.text` is sent with an unspecified type, so the server infers it from context (it works
/// for `text`, `varchar`, enums, `jsonb`, `uuid`, `numeric` ... columns). Write a cast
/// (`$1::jsonb`) where the context does not say.
public enum PostgresValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int16(Int16)
    case int32(Int32)
    /// `bigint` (`int8`).
    case int(Int64)
    /// Text of inferred type (see above).
    case text(String)
    case date(PostgresDate)
    case timestamptz(PostgresTimestamp)
    case bytea([UInt8])
    /// `bigint[]`, e.g. for `WHERE id = ANY($1)`.
    case int64Array([Int64])
    /// `text[]`.
    case textArray([String])
    /// A value already in the binary format of the type whose OID is `type`, sent as is (e.g. a
    /// column of rows as a one-dimensional array: `BinaryCopyRowBuffer.columnArrays`).
    case binary(type: UInt32, bytes: [UInt8])
}

extension PostgresValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PostgresValue {
    /// `.int`, or `.null` for nil.
    public static func int(_ value: Int64?) -> PostgresValue { value.map { .int($0) } ?? .null }
    /// `.text`, or `.null` for nil.
    public static func text(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null }
    /// `.int` from a Swift `Int`.
    public static func int(_ value: Int) -> PostgresValue { .int(Int64(value)) }
}

/// Type OIDs of the built-in types this client sends or checks (pg_type.oid, stable across versions).
public enum PostgresTypeOID {
    public static let bool: UInt32 = 16
    public static let bytea: UInt32 = 17
    public static let char: UInt32 = 18
    public static let name: UInt32 = 19
    public static let int8: UInt32 = 20
    public static let int2: UInt32 = 21
    public static let int4: UInt32 = 23
    public static let text: UInt32 = 25
    public static let oid: UInt32 = 26
    public static let json: UInt32 = 114
    public static let bpchar: UInt32 = 1042
    public static let varchar: UInt32 = 1043
    public static let date: UInt32 = 1082
    public static let timestamp: UInt32 = 1114
    public static let timestamptz: UInt32 = 1184
    public static let numeric: UInt32 = 1700
    public static let jsonb: UInt32 = 3802
    public static let int4Array: UInt32 = 1007
    public static let int8Array: UInt32 = 1016
    public static let textArray: UInt32 = 1009
    public static let byteaArray: UInt32 = 1001
    public static let jsonArray: UInt32 = 199
    public static let jsonbArray: UInt32 = 3807
    public static let unknown: UInt32 = 0
}

/// Parameters laid out the way `PQexecParams` wants them: one byte buffer, with offsets.
struct EncodedParameters {
    var types: [UInt32] = []
    var formats: [Int32] = []
    var lengths: [Int32] = []
    /// Offset of each value in `bytes`, or -1 for NULL.
    var offsets: [Int] = []
    var bytes: [UInt8] = []

    init(_ values: [PostgresValue]) {
        types.reserveCapacity(values.count)
        for value in values { append(value) }
        // Keeps the buffer non-empty so every non-NULL value (even zero-length) gets a pointer.
        bytes.append(0)
    }

    private mutating func appendBinary(_ type: UInt32, _ write: (inout [UInt8]) -> Void) {
        let start = bytes.count
        write(&bytes)
        types.append(type)
        formats.append(1)
        lengths.append(Int32(bytes.count - start))
        offsets.append(start)
    }

    private mutating func appendText(_ type: UInt32, _ text: String) {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        let length = bytes.count - start
        bytes.append(0)
        types.append(type)
        formats.append(0)
        lengths.append(Int32(length))
        offsets.append(start)
    }

    private mutating func append(_ value: PostgresValue) {
        switch value {
        case .null:
            types.append(PostgresTypeOID.unknown)
            formats.append(0)
            lengths.append(0)
            offsets.append(-1)
        case .bool(let flag):
            appendBinary(PostgresTypeOID.bool) { $0.append(flag ? 1 : 0) }
        case .int16(let number):
            appendBinary(PostgresTypeOID.int2) { $0.appendBigEndian(number) }
        case .int32(let number):
            appendBinary(PostgresTypeOID.int4) { $0.appendBigEndian(number) }
        case .int(let number):
            appendBinary(PostgresTypeOID.int8) { $0.appendBigEndian(number) }
        case .text(let text):
            appendText(PostgresTypeOID.unknown, text)
        case .date(let date):
            appendBinary(PostgresTypeOID.date) { $0.appendBigEndian(date.daysSince2000) }
        case .timestamptz(let instant):
            appendBinary(PostgresTypeOID.timestamptz) { $0.appendBigEndian(instant.microsecondsSince2000) }
        case .bytea(let data):
            appendBinary(PostgresTypeOID.bytea) { $0.append(contentsOf: data) }
        case .int64Array(let numbers):
            appendText(PostgresTypeOID.int8Array, "{" + numbers.map(String.init).joined(separator: ",") + "}")
        case .textArray(let texts):
            appendText(PostgresTypeOID.textArray, "{" + texts.map(Self.quoteArrayElement).joined(separator: ",") + "}")
        case .binary(let type, let data):
            appendBinary(type) { $0.append(contentsOf: data) }
        }
    }

    /// Quotes one element of a text-array literal: `"` and `\` are backslash-escaped.
    static func quoteArrayElement(_ text: String) -> String {
        var quoted = "\""
        for character in text.unicodeScalars {
            if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }

    /// Calls `body` with the C arrays `PQexecParams` takes.
    func withCArrays<R>(
        _ body: (
            _ count: Int32, _ types: UnsafePointer<UInt32>?, _ values: UnsafePointer<UnsafePointer<CChar>?>?,
            _ lengths: UnsafePointer<Int32>?, _ formats: UnsafePointer<Int32>?
        ) throws(PostgresError) -> R
    ) throws(PostgresError) -> R {
        let result: Result<R, PostgresError> = bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                guard offset >= 0, let base else { return nil }
                return (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return types.withUnsafeBufferPointer { types in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        pointers.withUnsafeBufferPointer { values in
                            do throws(PostgresError) {
                                return .success(try body(
                                    Int32(offsets.count), types.baseAddress, values.baseAddress,
                                    lengths.baseAddress, formats.baseAddress))
                            } catch {
                                return .failure(error)
                            }
                        }
                    }
                }
            }
        }
        return try result.get()
    }
}

extension Array where Element == UInt8 {
    @inlinable
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
