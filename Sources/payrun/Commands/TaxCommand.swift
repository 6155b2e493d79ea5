import ArgumentParser
import PayrollRules

/// `payrun tax`: 간이세액표 withholding for JSON Lines requests on stdin (calc-api.md).
struct TaxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tax",
        abstract: "Income tax withholding from JSON Lines requests (calc-api.md).",
        discussion: """
            Reads one request object per line on standard input, for example
              {"monthlyPay": 3000000, "family": 1, "children8to20": 0, "ratio": 100, "payDate": "2026-11-25"}
            and writes one response object per line, in the same order, on standard output:
              {"incomeTax":74350,"localIncomeTax":7430,"tableCell":74350,"childDeduction":0}
            A request that cannot be computed gets {"error": {"code", "message", "field"}} on its \
            line ("field" is omitted when the error concerns the whole line); the others are still \
            computed, and the exit status is 1 at the end if any line failed (0 otherwise; 2 when \
            reading or writing fails). Output is buffered, and flushed whenever more input must be \
            awaited, so payrun tax also works as a coprocess.

            Input rules (the same as payrun calc):
              - Blank lines (empty, or only spaces, tabs and \\r) are skipped and get no response. \
            A final line without a newline is read. \\r\\n line endings are accepted.
              - monthlyPay, family, children8to20 and payDate are required; ratio (80, 100 or 120) \
            defaults to 100, and null for it means the default; null for a required field is \
            missing_field.
              - Unknown fields are unknown_field; a repeated key is invalid_json; numbers must be \
            integer literals (3000000, not 3000000.0 or "3000000"); true/false are never numbers.
              - Error codes: invalid_json, unknown_field, missing_field, invalid_value, unsupported.

            Limits: a line longer than 1 MiB gets unsupported (not invalid_json: the line may be \
            valid JSON, it is only too large; it is not buffered beyond the limit) and the run goes \
            on; payment dates from 2024-03-01 (unsupported).
            """
    )

    func run() throws {
        try StandardStreams.serveJSONLines(commandName: "tax", respond: TaxAPI.respond)
    }
}
