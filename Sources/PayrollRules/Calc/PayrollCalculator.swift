// OWNER: calc-api helper. Placeholder signature; replace the body.

/// Turns one employee-period into a complete payslip. The single entry point shared by
/// `payrun calc`, recalculation jobs and the batch engine.
public enum PayrollCalculator {
    public static func calculate(_ input: PayrollInput) throws(PayrollError) -> Payslip {
        throw PayrollError(.unsupported, "calculator not implemented yet")
    }
}
