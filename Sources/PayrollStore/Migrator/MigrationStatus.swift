/// A migration recorded in `payrun.schema_migrations`.
public struct AppliedMigration: Sendable, Hashable {
    public let version: Int
    public let name: String
    public let checksum: String
    /// When it was applied, as PostgreSQL prints a timestamptz (ISO).
    public let appliedAt: String
    public let executionMilliseconds: Int
}

/// One line of `payrun db status`.
public struct MigrationStatus: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// Applied, and its file is unchanged.
        case applied
        /// A file not yet applied.
        case pending
        /// Applied, but its file has changed since (migrate refuses to run).
        case changed
        /// Applied, but there is no file for it (the database is newer than this payrun).
        case missingFile = "missing file"
    }

    public let version: Int
    public let name: String
    public let state: State
    /// Set for applied, changed and missing-file migrations.
    public let appliedAt: String?
}
