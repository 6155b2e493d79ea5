/// A problem with stored payroll data or a request about it that is not one employee's input
/// error (those are `PayrollError`s recorded on the employee's payslip).
public struct PayrollStoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The run, workplace or employee does not exist in this tenant.
        case notFound = "not_found"
        /// The run's state does not allow the operation (e.g. approving a run still calculating).
        case invalidState = "invalid_state"
        /// A job payload or an argument is malformed.
        case invalidRequest = "invalid_request"
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
