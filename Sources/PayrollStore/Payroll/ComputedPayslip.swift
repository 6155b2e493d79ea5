import PayrollRules

/// One employee's outcome, ready to be stored: a payslip or the error that stopped it.
public struct ComputedPayslip: Sendable {
    public var employeeId: Int64
    public var result: Result<Payslip, PayrollError>
    /// `InputDigest` of the input it was computed from (nil when no input could be built).
    public var inputDigest: [UInt8]?

    public init(employeeId: Int64, result: Result<Payslip, PayrollError>, inputDigest: [UInt8]?) {
        self.employeeId = employeeId
        self.result = result
        self.inputDigest = inputDigest
    }
}
