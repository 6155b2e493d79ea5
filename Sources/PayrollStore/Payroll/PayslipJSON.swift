import PayrollRules

/// The JSON columns of `payrun.payslips` (the lines `json` since 0014, warnings and error `jsonb`),
/// in the calc API's shapes (calc-api.md "Response"):
/// earnings `[{code, minutes, rate, multiplier, amount, method}]`, deductions
/// `[{code, base, amount, method}]`, warnings `[{code, message, date}]`, error `{code, message, field}`.
/// `PayslipDecoder` reads them back into a `Payslip`. Public for the benchmarks (`load-encode`).
public enum PayslipJSON {
    /// The bytes of `CalcResponseEncoder.write(lines, to:)`, written by `PayslipLineJSON`.
    public static func earnings(_ lines: [EarningLine]) -> [UInt8] { PayslipLineJSON.earnings(lines) }

    /// The bytes of `CalcResponseEncoder.write(lines, to:)`, written by `PayslipLineJSON`.
    public static func deductions(_ lines: [DeductionLine]) -> [UInt8] { PayslipLineJSON.deductions(lines) }

    /// The lines through `JSONWriter` (`payrun calc`'s encoder): what `earnings` must equal.
    static func earningsThroughWriter(_ lines: [EarningLine]) -> [UInt8] {
        var w = JSONWriter()
        CalcResponseEncoder.write(lines, to: &w)
        return w.bytes
    }

    /// The lines through `JSONWriter`: what `deductions` must equal.
    static func deductionsThroughWriter(_ lines: [DeductionLine]) -> [UInt8] {
        var w = JSONWriter()
        CalcResponseEncoder.write(lines, to: &w)
        return w.bytes
    }

    /// With `jsonbVersionByte`, the bytes start with jsonb's binary format version (1), as
    /// `PayslipWriter.jsonb` would prepend it (without a second array).
    public static func warnings(_ warnings: [PayrollWarning], jsonbVersionByte: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        if jsonbVersionByte { bytes.append(1) }
        var w = JSONWriter(appendingTo: consume bytes)  // moved: no copy on the first append
        CalcResponseEncoder.write(warnings, to: &w)
        return w.bytes
    }

    public static func error(_ e: PayrollError) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        CalcResponseEncoder.writeErrorBody(e, to: &w)
        return w.bytes
    }
}
