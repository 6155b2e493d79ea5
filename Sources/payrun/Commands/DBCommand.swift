import ArgumentParser
// OWNER: schema helper.
struct DBCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "db", abstract: "Database migrations and status.")
    func run() throws { throw ValidationError("not implemented yet") }
}
