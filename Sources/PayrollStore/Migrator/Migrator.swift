import PostgresClient

/// Applies the numbered `.sql` migrations to a database, each in its own transaction, and records
/// them in `payrun.schema_migrations` (version, name, SHA-256 of the file, time, duration).
///
/// Safe to run twice (applied migrations are skipped) and from several processes at once: every
/// transaction first takes `pg_advisory_xact_lock(advisoryLockKey)` and only then reads which
/// migrations are applied, so each migration is applied exactly once. A file of an applied
/// migration that has changed, a migration in the database with no file, and a new file numbered
/// below an applied one are refused before anything is applied.
///
/// The connection must belong to a role that may create schemas, tables and roles (the schema
/// owner or a superuser); migrations do not run under row-level security.
public struct Migrator: Sendable {
    /// Key of the transaction-scoped advisory lock serializing migrators of one database
    /// ("payrundb" in ASCII).
    public static let advisoryLockKey: Int64 = 0x7061_7972_756e_6462

    /// Table recording applied migrations.
    public static let migrationsTable = "payrun.schema_migrations"

    /// All migrations, sorted by version.
    public let migrations: [Migration]

    public init(migrations: [Migration]) throws(MigrationError) {
        self.migrations = try MigrationSource.validated(migrations)
    }

    /// Reads the migrations of `directory`, or of the default directory (the resource bundle next
    /// to the executable, else the source tree) when nil.
    public init(directory: String? = nil) throws(MigrationError) {
        if let directory {
            self.migrations = try MigrationSource.load(directory: directory)
        } else {
            self.migrations = try MigrationSource.load(directory: try MigrationSource.defaultDirectory())
        }
    }

    /// Applies every pending migration in version order and returns those this call applied
    /// (empty when the database was up to date, or when another process applied them meanwhile).
    /// `onApplied` is called after each commit with the migration and its duration.
    @discardableResult
    public func migrate(
        _ connection: PostgresConnection,
        onApplied: (Migration, Duration) -> Void = { _, _ in }
    ) throws(MigrationError) -> [Migration] {
        try mapErrors {
            try connection.transaction { connection in
                try lock(connection)
                try connection.executeScript(Self.bootstrapSQL)
            }
        }
        var applied: [Migration] = []
        let clock = ContinuousClock()
        while true {
            let started = clock.now
            let next: Migration? = try mapErrors {
                try connection.transaction { connection -> Migration? in
                    try lock(connection)
                    // Read under the lock: another migrator may have applied some meanwhile.
                    let pending = try pendingMigrations(given: try readApplied(connection))
                    guard let next = pending.first else { return nil }
                    try apply(next, on: connection, started: started, clock: clock)
                    return next
                }
            }
            guard let next else { return applied }
            applied.append(next)
            onApplied(next, clock.now - started)
        }
    }

    /// Every migration known to the files or to the database, with its state, by version.
    /// Reads only; works on a database that was never migrated (all pending).
    public func status(_ connection: PostgresConnection) throws(MigrationError) -> [MigrationStatus] {
        let applied = try mapErrors { try readApplied(connection) }
        let appliedByVersion = Dictionary(applied.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let fileVersions = Set(migrations.map(\.version))
        var lines: [MigrationStatus] = migrations.map { migration in
            guard let record = appliedByVersion[migration.version] else {
                return MigrationStatus(version: migration.version, name: migration.name, state: .pending, appliedAt: nil)
            }
            let state: MigrationStatus.State = record.checksum == migration.checksum ? .applied : .changed
            return MigrationStatus(version: migration.version, name: migration.name, state: state, appliedAt: record.appliedAt)
        }
        for record in applied where !fileVersions.contains(record.version) {
            lines.append(MigrationStatus(version: record.version, name: record.name, state: .missingFile, appliedAt: record.appliedAt))
        }
        return lines.sorted { $0.version < $1.version }
    }

    /// The migrations recorded in the database, by version; empty if the table does not exist.
    public func readApplied(_ connection: PostgresConnection) throws(PostgresError) -> [AppliedMigration] {
        let exists = try connection.queryOne("SELECT to_regclass($1) IS NOT NULL", [.text(Self.migrationsTable)])
        guard let exists, try exists.bool(at: 0) else { return [] }
        let rows = try connection.query(
            "SELECT version, name, checksum, applied_at::text, execution_ms FROM \(Self.migrationsTable) ORDER BY version")
        var applied: [AppliedMigration] = []
        applied.reserveCapacity(rows.count)
        for row in rows {
            applied.append(AppliedMigration(
                version: try row.int(at: 0), name: try row.string(at: 1), checksum: try row.string(at: 2),
                appliedAt: try row.string(at: 3), executionMilliseconds: try row.int(at: 4)))
        }
        return applied
    }

    /// The migrations still to apply given what the database has, after checking that the
    /// applied ones match their files and that no pending one comes before an applied one.
    public func pendingMigrations(given applied: [AppliedMigration]) throws(MigrationError) -> [Migration] {
        let byVersion = Dictionary(migrations.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        for record in applied {
            guard let migration = byVersion[record.version] else {
                throw .unknownAppliedMigration(version: record.version, name: record.name)
            }
            guard migration.checksum == record.checksum else {
                throw .checksumMismatch(version: record.version, name: migration.name,
                                        appliedChecksum: record.checksum, fileChecksum: migration.checksum)
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        let pending = migrations.filter { !appliedVersions.contains($0.version) }
        if let latest = applied.map(\.version).max(), let early = pending.first(where: { $0.version < latest }) {
            throw .outOfOrder(version: early.version, name: early.name, latestAppliedVersion: latest)
        }
        return pending
    }

    // MARK: - Steps

    /// Creates the schema and the migrations table if missing (under the lock, so two first runs
    /// do not race on CREATE).
    static let bootstrapSQL = """
        CREATE SCHEMA IF NOT EXISTS payrun;
        CREATE TABLE IF NOT EXISTS payrun.schema_migrations (
            version       integer PRIMARY KEY CHECK (version > 0),
            name          text NOT NULL,
            checksum      text NOT NULL CHECK (checksum ~ '^[0-9a-f]{64}$'),
            applied_at    timestamptz NOT NULL DEFAULT now(),
            execution_ms  integer NOT NULL CHECK (execution_ms >= 0)
        );
        """

    private func lock(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(Self.advisoryLockKey)])
    }

    private func apply(
        _ migration: Migration, on connection: PostgresConnection, started: ContinuousClock.Instant, clock: ContinuousClock
    ) throws {
        do {
            try connection.executeScript(migration.sql)
        } catch {
            throw MigrationError.migrationFailed(version: migration.version, name: migration.name, error: error)
        }
        guard connection.isInTransaction else {
            throw MigrationError.endedTransaction(version: migration.version, name: migration.name)
        }
        let elapsed = clock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        try connection.execute(
            "INSERT INTO \(Self.migrationsTable) (version, name, checksum, execution_ms) VALUES ($1, $2, $3, $4)",
            [.int(migration.version), .text(migration.name), .text(migration.checksum), .int(milliseconds)])
    }

    /// Runs `body`, turning database errors into `MigrationError.database`.
    private func mapErrors<T>(_ body: () throws -> T) throws(MigrationError) -> T {
        do {
            return try body()
        } catch let error as MigrationError {
            throw error
        } catch let error as PostgresError {
            throw .database(error)
        } catch {
            throw .database(PostgresError(kind: .other, message: String(describing: error)))
        }
    }
}
