import PayrollRules
import PayrollStore
import PostgresClient

/// Helpers shared by the payroll commands.
enum PayrollCommandSupport {
    /// `YYYY-MM` → (year, month).
    static func parseMonth(_ text: String) throws -> (year: Int, month: Int) {
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]), let month = Int(parts[1]),
              (1...12).contains(month)
        else { throw CommandFailure("--period must be YYYY-MM, got '\(text)'") }
        return (year, month)
    }

    /// `YYYY-MM-DD`, or `YYYY-MM` meaning its first day.
    static func parseDate(_ text: String, option: String) throws -> LocalDate {
        if let date = LocalDate(iso: text) { return date }
        if let (year, month) = try? parseMonth(text), let date = LocalDate(year: year, month: month, day: 1) { return date }
        throw CommandFailure("\(option) must be YYYY-MM-DD (or YYYY-MM), got '\(text)'")
    }

    /// Runs `body` in a transaction scoped to `tenant`.
    static func inTenant<T>(_ tenant: Int64, _ connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try body(c)
        }
    }

    /// The tenant of `runId`: `given`, else looked up (visible to the owner/superuser, or a
    /// BYPASSRLS role; other roles must pass --tenant).
    static func tenant(of runId: Int64, given: Int64?, on connection: PostgresConnection) throws -> Int64 {
        if let given { return given }
        guard let row = try connection.queryOne("SELECT tenant_id FROM payrun.payroll_runs WHERE id = $1", [.int(runId)]) else {
            throw CommandFailure("run \(runId) not found; pass --tenant (row-level security hides other tenants' runs from this role)")
        }
        return try row.int64(at: 0)
    }

    static func won(_ amount: Int64?) -> String {
        guard let amount else { return "-" }
        return Money.grouped(amount) + "원"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let w = displayWidth(text)
        return w >= width ? text + " " : text + String(repeating: " ", count: width - w)
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        let w = displayWidth(text)
        return w >= width ? text : String(repeating: " ", count: width - w) + text
    }

    /// Terminal columns: Hangul and other wide characters take two.
    static func displayWidth(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { n, s in
            let v = s.value
            let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFF60).contains(v)
            return n + (wide ? 2 : 1)
        }
    }
}
