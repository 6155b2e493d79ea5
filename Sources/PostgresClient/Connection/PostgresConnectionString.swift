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
}
