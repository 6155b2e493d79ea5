/// Quoting of SQL identifiers, for the few statements that cannot take bind parameters
/// (`CREATE ROLE`, `SET ROLE`, `LISTEN`, table names chosen at run time).
public enum PostgresIdentifier {
    /// `name` as a double-quoted identifier (inner `"` doubled). Rejects NUL bytes, which
    /// PostgreSQL cannot store, with `.invalidUsage`.
    public static func quoted(_ name: String) throws(PostgresError) -> String {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw .invalidUsage("an identifier must be non-empty and contain no NUL byte")
        }
        return "\"" + name.replacingDoubleQuotes() + "\""
    }
}
