/// What answering one JSON Lines request line did.
public enum JSONLineOutcome: Sendable, Equatable {
    /// A result object was written.
    case computed
    /// An error response was written.
    case failed
    /// A blank line (only spaces, tabs or `\r`): nothing was written.
    case skippedBlank
}

/// The line discipline shared by `payrun calc` and `payrun tax` (calc-api.md): a blank line gets
/// no response; an over-long line is `unsupported`; any other line is computed, and a
/// `PayrollError` becomes the error response `{"error":{"code","message","field"}}` (`field`
/// omitted when the error names none) on that line. Keeps no state between lines.
public enum JSONLineResponder {
    /// Appends the response to `line` and a newline to `out`. `compute` decodes and computes
    /// without writing; `write` encodes its result (so a failure never leaves partial output).
    public static func respond<Answer>(
        to line: JSONLinesReader.Line, into out: inout JSONWriter,
        compute: (UnsafeBufferPointer<UInt8>) throws(PayrollError) -> Answer,
        write: (Answer, inout JSONWriter) -> Void
    ) -> JSONLineOutcome {
        switch line {
        case .tooLong:
            // The line may well be valid JSON; it is only too large to accept.
            writeError(PayrollError(.unsupported, "request line is longer than \(CalcLimits.lineBytesMax) bytes"), into: &out)
            return .failed
        case .text(let bytes):
            if isBlank(bytes) { return .skippedBlank }
            do throws(PayrollError) {
                let answer = try compute(bytes)
                write(answer, &out)
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
