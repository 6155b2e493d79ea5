import PostgresClient

/// Why migrations could not be listed or applied. Each case names the file or version concerned.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// The migrations directory does not exist or cannot be listed.
    case directoryNotFound(path: String)
    /// No migrations directory was given and none was found next to the executable or in the source tree.
    case noDefaultDirectory(searched: [String])
    /// The directory has no migration files.
    case noMigrations(path: String)
    case unreadableFile(path: String, reason: String)
    /// A `.sql` file whose name is not `NNNN_name.sql`.
    case invalidFileName(path: String)
    /// Two files with the same number.
    case duplicateVersion(version: Int, fileNames: [String])
    /// The file of an applied migration differs from what was applied.
    case checksumMismatch(version: Int, name: String, appliedChecksum: String, fileChecksum: String)
    /// The database has a migration that is not among the files (it was made by a newer payrun).
    case unknownAppliedMigration(version: Int, name: String)
    /// A pending migration is numbered below one already applied (added out of order).
    case outOfOrder(version: Int, name: String, latestAppliedVersion: Int)
    /// The migration's SQL failed; nothing of it was applied.
    case migrationFailed(version: Int, name: String, error: PostgresError)
    /// The migration's SQL committed or rolled back the transaction it must run in.
    case endedTransaction(version: Int, name: String)
    /// Reading or writing the migrations table failed.
    case database(PostgresError)

    public var description: String {
        switch self {
        case .directoryNotFound(let path):
            return "migrations directory \(path) does not exist or cannot be read"
        case .noDefaultDirectory(let searched):
            return "no migrations directory found (looked in \(searched.joined(separator: ", "))); give --migrations-dir"
        case .noMigrations(let path):
            return "no migration files (NNNN_name.sql) in \(path)"
        case .unreadableFile(let path, let reason):
            return "cannot read migration file \(path): \(reason)"
        case .invalidFileName(let path):
            return "\(path): a migration file must be named NNNN_name.sql (digits, underscore, lower-case letters, digits and _)"
        case .duplicateVersion(let version, let fileNames):
            return "migration number \(Migration.formatVersion(version)) is used by several files: \(fileNames.joined(separator: ", "))"
        case .checksumMismatch(let version, let name, let applied, let file):
            return "migration \(Migration.formatVersion(version))_\(name) was applied with checksum \(applied.prefix(12))… but its file now has \(file.prefix(12))…: applied migrations must not be edited; add a new migration instead"
        case .unknownAppliedMigration(let version, let name):
            return "the database has migration \(Migration.formatVersion(version))_\(name), which is not among the migration files: this payrun is older than the database"
        case .outOfOrder(let version, let name, let latest):
            return "migration \(Migration.formatVersion(version))_\(name) is pending but migration \(Migration.formatVersion(latest)) is already applied: renumber it after \(Migration.formatVersion(latest))"
        case .migrationFailed(let version, let name, let error):
            return "migration \(Migration.formatVersion(version))_\(name) failed and was rolled back: \(error)"
        case .endedTransaction(let version, let name):
            return "migration \(Migration.formatVersion(version))_\(name) ended its transaction (COMMIT/ROLLBACK in the file); migrations must not manage transactions"
        case .database(let error):
            return "migrations table: \(error)"
        }
    }
}
