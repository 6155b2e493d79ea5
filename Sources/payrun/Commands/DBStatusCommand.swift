import ArgumentParser
import PayrollStore

/// `payrun db status`: applied and pending migrations.
struct DBStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List applied and pending migrations.",
        discussion: "Exits with status 1 when an applied migration's file has changed or is missing."
    )

    @OptionGroup var options: MigrationOptions

    func run() throws {
        let migrator = try Migrator(directory: options.migrationsDirectory)
        let connection = try options.database.connect()
        defer { connection.close() }
        let lines = try migrator.status(connection)
        let nameWidth = max(4, lines.map(\.name.count).max() ?? 0)
        print(pad("version", 8) + pad("name", nameWidth + 2) + pad("state", 13) + "applied at")
        for line in lines {
            print(pad(Migration.formatVersion(line.version), 8) + pad(line.name, nameWidth + 2)
                  + pad(line.state.rawValue, 13) + (line.appliedAt ?? ""))
        }
        let pending = lines.filter { $0.state == .pending }.count
        let applied = lines.filter { $0.state == .applied }.count
        print("\(applied) applied, \(pending) pending")
        let broken = lines.filter { $0.state == .changed || $0.state == .missingFile }
        if !broken.isEmpty {
            throw CommandFailure("\(broken.count) applied migration(s) do not match the files: "
                + broken.map { "\(Migration.formatVersion($0.version))_\($0.name) (\($0.state.rawValue))" }.joined(separator: ", "))
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
