import ArgumentParser
import PayrollStore

/// `payrun db migrate`: apply pending migrations.
struct DBMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending migrations, each in its own transaction.",
        discussion: """
            Refuses to run when the file of an applied migration has changed, when the database has \
            a migration this payrun does not know, or when a new file is numbered below an applied \
            one. Connects as the schema owner (it creates schemas, tables and the roles \
            payrun_worker and payrun_backend).
            """
    )

    @OptionGroup var options: MigrationOptions

    func run() throws {
        let migrator = try Migrator(directory: options.migrationsDirectory)
        let connection = try options.database.connect()
        defer { connection.close() }
        let applied = try migrator.migrate(connection) { migration, duration in
            let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
            print("applied \(migration.fileName) (\(milliseconds) ms)")
        }
        let latest = migrator.migrations.last.map { Migration.formatVersion($0.version) } ?? "none"
        if applied.isEmpty {
            print("database is up to date (latest migration \(latest))")
        } else {
            print("applied \(applied.count) migration\(applied.count == 1 ? "" : "s"); database is at \(latest)")
        }
    }
}
