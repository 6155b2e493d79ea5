/// Helpers for libpq connection strings.
public enum PostgresConnectionString {
    /// The same server's connection string pointing at `database`: replaces the path of a
    /// `postgresql://` / `postgres://` URI (keeping its query, e.g. `?host=/socket/dir`), or
    /// appends `dbname=` to a keyword/value string (a later keyword wins in libpq).
    public static func replacingDatabase(in connectionString: String, with database: String) -> String {
        for scheme in ["postgresql://", "postgres://"] where connectionString.hasPrefix(scheme) {
            let rest = connectionString.dropFirst(scheme.count)
            let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
            let authorityAndPath = rest[..<queryStart]
            let authority = authorityAndPath.firstIndex(of: "/").map { authorityAndPath[..<$0] } ?? authorityAndPath
            return scheme + authority + "/" + database + rest[queryStart...]
        }
        return connectionString + " dbname=\(database)"
    }

    /// The same connection string with `-c name=value` added to libpq's `options` (a setting the
    /// server applies at the session's start, e.g. `role`, as `SET` would): appended to the
    /// `options` parameter of a `postgresql://` / `postgres://` URI, or added as one; for a
    /// keyword/value string, an `options` keyword added (nil when the string has one already: a
    /// later keyword replaces an earlier one, which would drop its settings). `name` and `value`
    /// must be plain identifiers (letters, digits, `_`; nil otherwise): nothing is quoted.
    public static func addingStartupSetting(in connectionString: String, name: String, value: String) -> String? {
        func plain(_ text: String) -> Bool {
            !text.isEmpty && text.utf8.allSatisfy { c in
                (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                    || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
            }
        }
        guard plain(name), plain(value) else { return nil }
        for scheme in ["postgresql://", "postgres://"] where connectionString.hasPrefix(scheme) {
            let setting = "-c%20\(name)%3D\(value)"
            guard let queryStart = connectionString.firstIndex(of: "?") else { return connectionString + "?options=" + setting }
            let query = connectionString[connectionString.index(after: queryStart)...]
            var parameters = query.split(separator: "&", omittingEmptySubsequences: false).map(String.init)
            if let k = parameters.firstIndex(where: { $0.hasPrefix("options=") }) {
                parameters[k] += "%20" + setting
            } else {
                parameters.append("options=" + setting)
            }
            return connectionString[...queryStart] + parameters.joined(separator: "&")
        }
        if connectionString.contains("options") { return nil }
        return connectionString + " options='-c \(name)=\(value)'"
    }
}
