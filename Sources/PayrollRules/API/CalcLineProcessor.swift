/// Answers one `payrun calc` request line: decode, calculate, encode. Shared by the CLI and tests;
/// it keeps no state between lines.
public enum CalcLineProcessor {
    public enum Outcome: Sendable, Equatable {
        /// A payslip was written.
        case computed
        /// An error response was written.
        case failed
        /// A blank line (only spaces, tabs or `\r`): nothing was written.
        case skippedBlank
    }

    /// Appends the response to `line` and a newline to `out`.
    public static func respond(to line: JSONLinesReader.Line, into out: inout JSONWriter) -> Outcome {
        switch line {
        case .tooLong:
            writeError(PayrollError(.unsupported, "request line is longer than \(CalcLimits.lineBytesMax) bytes"), into: &out)
            return .failed
        case .text(let bytes):
            if isBlank(bytes) { return .skippedBlank }
            do throws(PayrollError) {
                let payslip = try PayrollCalculator.calculate(try CalcRequestDecoder.decode(bytes))
                CalcResponseEncoder.write(payslip, to: &out)
                out.newline()
                return .computed
            } catch {
                writeError(error, into: &out)
                return .failed
            }
        }
    }

    static func writeError(_ error: PayrollError, into out: inout JSONWriter) {
        CalcResponseEncoder.write(error, to: &out)
        out.newline()
    }

    public static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in bytes where b != 0x20 && b != 0x09 && b != 0x0D { return false }
        return true
    }
}
