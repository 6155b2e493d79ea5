import ArgumentParser

/// `payrun db`: the database schema. Migrations are the numbered `.sql` files of
/// `sql/migrations` (bundled into the executable's resources).
struct DBCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Database migrations and status.",
        discussion: """
            Migrations are plain numbered SQL files (sql/migrations/NNNN_name.sql). Each is applied \
            once, in order, in its own transaction, and recorded in payrun.schema_migrations with \
            its SHA-256. Running migrate twice, or from two processes at once, is safe.
            """,
        subcommands: [DBMigrateCommand.self, DBStatusCommand.self]
    )
}

/// Options common to the `db` subcommands.
struct MigrationOptions: ParsableArguments {
    @OptionGroup var database: DatabaseOptions

    @Option(
        name: .customLong("migrations-dir"),
        help: ArgumentHelp(
            "Directory of NNNN_name.sql files (default: the migrations bundled with payrun).",
            valueName: "dir"))
    var migrationsDirectory: String?
}
