import PayrollRules
import PostgresClient

/// An enum-like text column (`wage_type`, `tax`, `week_start`, `kind`, …) decoded straight from
/// its bytes in the COPY buffer, without making a `String` per row: the value when the bytes
/// spell one of the table's keywords, else the text itself, kept for the error that names the
/// record and field (raised only when the row is used, as before).
enum StoredKeyword<Value> {
    case known(Value)
    case unknown(String)
}

/// The keywords of one enum as UTF-8 bytes, for `StoredKeyword`.
///
/// Accepts exactly what `parse` accepts: bytes equal to a keyword are that keyword; any other
/// text is decoded (invalid UTF-8 repaired, as `BinaryCopyRow.text()` does) and given to `parse`,
/// so a text that differs in bytes but is equal as a `String` (canonically equivalent) still
/// parses, and the rest is `.unknown` with the same text the String path had.
struct KeywordTable<Value: Sendable>: Sendable {
    /// A keyword's UTF-8 bytes, zero-padded into two words (keywords longer than 16 bytes never
    /// match here and are left to `parse`), compared in two loads instead of byte by byte.
    private struct Entry: Sendable {
        var byteCount: Int
        var low: UInt64
        var high: UInt64
        var value: Value
    }

    private let entries: [Entry]
    private let parse: @Sendable (String) -> Value?

    init(_ keywords: [(String, Value)], parse: @escaping @Sendable (String) -> Value?) {
        entries = keywords.map { keyword, value in
            let bytes = Array(keyword.utf8)
            guard bytes.count <= 16 else { return Entry(byteCount: -1, low: 0, high: 0, value: value) }
            let (low, high) = bytes.withUnsafeBytes { Self.packed($0) }
            return Entry(byteCount: bytes.count, low: low, high: high, value: value)
        }
        self.parse = parse
    }

    /// Up to 16 bytes zero-padded into two words.
    @inline(__always)
    private static func packed(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
        return words
    }

    /// Inlined where a row is read (the comparison with the keywords); a text that is none of
    /// them goes to `decodeOther`.
    @inline(__always)
    func decode(_ bytes: UnsafeRawBufferPointer) -> StoredKeyword<Value> {
        if bytes.count <= 16 {
            let (low, high) = Self.packed(bytes)
            for entry in entries where entry.byteCount == bytes.count && entry.low == low && entry.high == high {
                return .known(entry.value)
            }
        }
        return decodeOther(bytes)
    }

    @inline(never)
    private func decodeOther(_ bytes: UnsafeRawBufferPointer) -> StoredKeyword<Value> {
        let text = String(decoding: bytes, as: UTF8.self)
        if let value = parse(text) { return .known(value) }
        return .unknown(text)
    }
}

extension KeywordTable where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// Every case by its raw value.
    init() {
        self.init(Value.allCases.map { ($0.rawValue, $0) }, parse: { Value(rawValue: $0) })
    }
}

extension BinaryCopyRow {
    /// The next field (non-NULL text) as a keyword of `table`.
    @inline(__always)
    mutating func keyword<Value>(_ table: KeywordTable<Value>) throws(PostgresError) -> StoredKeyword<Value> {
        try withNonNullTextBytes { (bytes) throws(PostgresError) in table.decode(bytes) }
    }

    /// The next field as a keyword of `table`, or nil for NULL.
    @inline(__always)
    mutating func optionalKeyword<Value>(_ table: KeywordTable<Value>) throws(PostgresError) -> StoredKeyword<Value>? {
        try withTextBytes { (bytes) throws(PostgresError) in bytes.map(table.decode) }
    }
}

/// The keyword tables of the loader's enum columns (built once).
enum StoredKeywords {
    static let wageType = KeywordTable<WageType>()
    static let allowance = KeywordTable<AllowanceSwitch>()
    static let tax = KeywordTable<TaxMode>()
    static let absenceKind = KeywordTable<AbsenceKind>()
    /// `mon` … `sun`, as `Weekday(key:)`.
    static let weekday = KeywordTable<Weekday>(Weekday.allCases.map { ($0.key, $0) }, parse: { Weekday(key: $0) })

    /// The tables a contract row reads, taken once per COPY: each access to one of the static
    /// tables above is a `swift_once` call, four per contract row when read there.
    struct Contract {
        let wageType = StoredKeywords.wageType
        let weekday = StoredKeywords.weekday
        let allowance = StoredKeywords.allowance
        let tax = StoredKeywords.tax
    }
}
