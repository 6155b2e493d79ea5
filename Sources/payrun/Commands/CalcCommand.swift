import ArgumentParser
import PayrollRules

/// `payrun calc`: one payslip per JSON Lines request, without a database (calc-api.md).
struct CalcCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calc",
        abstract: "Compute payslips from JSON Lines requests on stdin (calc-api.md).",
        discussion: """
            Reads one request object per line on standard input and writes one response object per \
            line, in the same order, on standard output. A request that cannot be computed gets \
            {"error": {"code", "message", "field"}} on its line ("field" is omitted when the error \
            concerns the whole line); the others are still computed, and \
            the exit status is 1 at the end if any line failed (0 otherwise; 2 when reading or \
            writing fails). Output is buffered, and flushed whenever more input must be awaited, so \
            payrun calc also works as a coprocess (write a line, read its answer).

            Input rules:
              - Blank lines (empty, or only spaces, tabs and \\r) are skipped and get no response, so \
            response N answers the N-th non-blank line. A final line without a newline is read. \
            \\r\\n line endings are accepted.
              - Times are ISO-8601 with an offset and whole minutes: 2026-11-02T17:30:00+09:00. \
            "Z" (UTC) and any offset are accepted and converted to Korea time; a time without an \
            offset, with non-zero or fractional seconds, is invalid_value.
              - Unknown fields anywhere are unknown_field; a repeated key is invalid_json; null for an \
            optional field means its default; numbers for integer fields must be integer literals \
            (10320, not 10320.0 or "10320"); true/false only where a boolean belongs.
              - workplace.holidays, when given, replaces the built-in calendar (2025–2026). Explicit \
            shift breaks win over breakMinutes; when both are given they must agree. Shifts are \
            sorted by start and must not overlap; errors name shifts by their input index.
              - tax "daily": the taxable part of the non-taxable items (beyond their 200,000원 \
            exemptions) is counted as pay of the last date with pay (periodEnd when there is none).
              - Error codes: invalid_json, unknown_field, missing_field, invalid_value, unsupported; \
            field is a dotted path such as shifts[3].end or contract.schedule.mon.

            Limits (per request; beyond them the line gets an error and the run goes on):
              - line length 1 MiB (unsupported, not invalid_json: the line may be valid JSON, it is \
            only too large; it is not buffered beyond the limit);
              - 1,000 shifts, 100 breaks per shift, 400 holidays, 100 absences (invalid_value);
              - period at most 31 days; shifts and absences at most 7 days outside it;
              - shifts at most 24 h; wage and other amounts at most 1,000,000,000원; family 1…99;
              - premium months 2025-01 … 2026-12 and payment dates from 2024-03-01 (unsupported).

            Example:
              echo '{"periodStart":"2026-11-01", ...}' | payrun calc
            """
    )

    func run() throws {
        try StandardStreams.serveJSONLines(commandName: "calc", respond: CalcLineProcessor.respond)
    }
}
