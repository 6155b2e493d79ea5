import ArgumentParser
// OWNER: calc-api helper.
struct CalcCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "calc", abstract: "Compute payslips from JSON Lines requests (calc-api.md).")
    func run() throws { throw ValidationError("not implemented yet") }
}
