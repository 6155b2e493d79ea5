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
            payrun_worker and payrun_backend; as a superuser also payrun_payslip_writer, a BYPASSRLS \
            role workers COPY their payslips as — without it, it prints the statements a superuser \
            can run).
            """
    )

    @OptionGroup var options: MigrationOptions

    func run() throws {
        let migrator = try Migrator(directory: options.migrationsDirectory)
        let connection = try options.database.connect()
        defer { connection.close() }
        // Progress on a terminal: which migration of how many is being applied.
        let progress = TerminalProgress()
        let pending = progress.enabled ? ((try? migrator.pendingMigrations(given: migrator.readApplied(connection))) ?? []) : []
        var appliedCount = 0
        if let first = pending.first { progress.update("db migrate: applying 1/\(pending.count) \(first.fileName)") }
        let applied = try migrator.migrate(connection) { migration, duration in
            let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
            progress.finish()
            print("applied \(migration.fileName) (\(milliseconds) ms)")
            appliedCount += 1
            if appliedCount < pending.count {
                progress.update("db migrate: applying \(appliedCount + 1)/\(pending.count) \(pending[appliedCount].fileName)")
            }
        }
        progress.finish()
        let latest = migrator.migrations.last.map { Migration.formatVersion($0.version) } ?? "none"
        if applied.isEmpty {
            print("database is up to date (latest migration \(latest))")
        } else {
            print("applied \(applied.count) migration\(applied.count == 1 ? "" : "s"); database is at \(latest)")
        }
        // 0022 creates payrun_payslip_writer only when a superuser migrates: say what is missing.
        let setup = migrator.migrations.contains { $0.version >= 22 } ? try PayslipWriter.writerRoleSetupStatements(on: connection) : []
        if !setup.isEmpty {
            StandardStreams.writeError("note: payrun_payslip_writer is not in place, so workers under row-level security (members of "
                       + "payrun_worker) insert payslips from column arrays, slower than COPY (migration 0022). "
                       + "A superuser can put it in place in this database:" + setup.map { "\n    " + $0 }.joined() + "\n")
        }
    }
}
