import PayrollRules

/// The JSON columns of `payrun.payslips` (the lines `json` since 0014, warnings and error `jsonb`),
/// in the calc API's shapes (calc-api.md "Response"):
/// earnings `[{code, minutes, rate, multiplier, amount, method}]`, deductions
/// `[{code, base, amount, method}]`, warnings `[{code, message, date}]`, error `{code, message, field}`.
/// `PayslipDecoder` reads them back into a `Payslip`.
enum PayslipJSON {
    static func earnings(_ lines: [EarningLine]) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        CalcResponseEncoder.write(lines, to: &w)
        return w.bytes
    }

    static func deductions(_ lines: [DeductionLine]) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        CalcResponseEncoder.write(lines, to: &w)
        return w.bytes
    }

    static func warnings(_ warnings: [PayrollWarning]) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        CalcResponseEncoder.write(warnings, to: &w)
        return w.bytes
    }

    static func error(_ e: PayrollError) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        CalcResponseEncoder.writeErrorBody(e, to: &w)
        return w.bytes
    }
}
