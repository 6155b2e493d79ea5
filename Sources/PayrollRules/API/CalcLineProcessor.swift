/// Answers one `payrun calc` request line: decode, calculate, encode (the line discipline is
/// `JSONLineResponder`'s). Shared by the CLI and tests; it keeps no state between lines.
public enum CalcLineProcessor {
    public typealias Outcome = JSONLineOutcome

    /// Appends the response to `line` and a newline to `out`.
    public static func respond(to line: JSONLinesReader.Line, into out: inout JSONWriter) -> Outcome {
        JSONLineResponder.respond(
            to: line, into: &out,
            compute: { bytes throws(PayrollError) in try PayrollCalculator.calculate(try CalcRequestDecoder.decode(bytes)) },
            write: { payslip, w in CalcResponseEncoder.write(payslip, to: &w) })
    }
}
