/// One migration: the file `NNNN_name.sql`, applied once, in version order, in its own transaction.
public struct Migration: Sendable, Hashable {
    /// The number in the file name (`0003` → 3). Unique; defines the order.
    public let version: Int
    /// The rest of the file name without `.sql` (`holidays_2025_2026`).
    public let name: String
    /// The file's SQL text.
    public let sql: String
    /// SHA-256 of the file's bytes, hex. Recorded when applied; a later mismatch means the file of an
    /// applied migration was edited, which `Migrator` refuses.
    public let checksum: String

    /// The file name this migration has (`0003_holidays_2025_2026.sql`).
    public var fileName: String { "\(Migration.formatVersion(version))_\(name).sql" }

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hexDigest(Array(sql.utf8))
    }

    /// Parses `NNNN_name.sql` (four or more digits, then lower-case letters, digits and `_`);
    /// nil for anything else.
    public static func parseFileName(_ fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard digits.count >= 4, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let version = Int(digits), version > 0,
              !name.isEmpty, name.count <= 100,
              name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") })
        else { return nil }
        return (version, String(name))
    }

    /// `3` → `0003`.
    public static func formatVersion(_ version: Int) -> String {
        let digits = String(version)
        return digits.count >= 4 ? digits : String(repeating: "0", count: 4 - digits.count) + digits
    }
}
