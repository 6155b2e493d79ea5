import ArgumentParser
// OWNER: rules-deductions helper.
struct TaxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "tax", abstract: "Income tax withholding from JSON Lines requests (calc-api.md).")
    func run() throws { throw ValidationError("not implemented yet") }
}
