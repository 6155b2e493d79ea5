/// Writes `payrun calc` responses (calc-api.md "Response") as one compact JSON object, keys in
/// the contract's order; keys whose value is absent (a non-taxable line's minutes, rate and
/// multiplier; a deduction without a base; a warning without a date) are omitted. Rates are JSON
/// numbers when whole and `"p/q"` strings otherwise.
public enum CalcResponseEncoder {
    public static func write(_ p: Payslip, to w: inout JSONWriter) {
        w.beginObject()
        w.member("employeeId", p.employeeId)
        w.member("ruleSet", p.ruleSet)
        w.key("minutes")
        w.beginObject()
        w.member("worked", p.minutes.worked)
        w.member("regular", p.minutes.regular)
        w.member("overtime", p.minutes.overtime)
        w.member("partTimeExcess", p.minutes.partTimeExcess)
        w.member("night", p.minutes.night)
        w.member("holiday", p.minutes.holiday)
        w.member("holidayOver8", p.minutes.holidayOver8)
        w.member("weeklyAllowance", p.minutes.weeklyAllowance)
        w.member("paidHoliday", p.minutes.paidHoliday)
        w.endObject()
        w.key("earnings")
        write(p.earnings, to: &w)
        w.member("gross", p.gross)
        w.member("nonTaxable", p.nonTaxable)
        w.member("taxable", p.taxable)
        w.key("deductions")
        write(p.deductions, to: &w)
        w.member("totalDeductions", p.totalDeductions)
        w.member("net", p.net)
        w.key("warnings")
        write(p.warnings, to: &w)
        w.endObject()
    }

    /// `{"error":{"code":"…","message":"…","field":"…"}}`; `field` omitted when nil. The error
    /// response of both JSON Lines commands (`JSONLineResponder`).
    public static func write(_ e: PayrollError, to w: inout JSONWriter) {
        w.beginObject()
        w.key("error")
        writeErrorBody(e, to: &w)
        w.endObject()
    }

    /// `[{code, minutes, rate, multiplier, amount, method}]` — also the stored payslip's `earnings`.
    public static func write(_ lines: [EarningLine], to w: inout JSONWriter) {
        w.beginArray()
        for line in lines {
            w.beginObject()
            w.member("code", line.code.rawValue)
            if let minutes = line.minutes { w.member("minutes", minutes) }
            if let rate = line.rate { w.member("rate", rate) }
            if let multiplier = line.multiplier { w.member("multiplier", multiplier) }
            w.member("amount", line.amount)
            line.withMethodUTF8 { w.member("method", utf8: $0) }  // the bytes, not a String made of them
            w.endObject()
        }
        w.endArray()
    }

    /// `[{code, base, amount, method}]` — also the stored payslip's `deductions`.
    public static func write(_ lines: [DeductionLine], to w: inout JSONWriter) {
        w.beginArray()
        for line in lines {
            w.beginObject()
            w.member("code", line.code.rawValue)
            if let base = line.base { w.member("base", base) }
            w.member("amount", line.amount)
            line.withMethodUTF8 { w.member("method", utf8: $0) }  // the bytes, not a String made of them
            w.endObject()
        }
        w.endArray()
    }

    /// `[{code, message, date}]` — also the stored payslip's `warnings`.
    public static func write(_ warnings: [PayrollWarning], to w: inout JSONWriter) {
        w.beginArray()
        for warning in warnings {
            w.beginObject()
            w.member("code", warning.code.rawValue)
            w.member("message", warning.message)
            if let date = warning.date { w.member("date", date.description) }
            w.endObject()
        }
        w.endArray()
    }

    /// `{code, message, field}` (`field` omitted when nil) — the inside of an error response, and
    /// the stored payslip's `error`.
    public static func writeErrorBody(_ e: PayrollError, to w: inout JSONWriter) {
        w.beginObject()
        w.member("code", e.code.rawValue)
        w.member("message", e.message)
        if let field = e.field { w.member("field", field) }
        w.endObject()
    }

    public static func encode(_ p: Payslip) -> String {
        var w = JSONWriter()
        write(p, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    public static func encode(_ e: PayrollError) -> String {
        var w = JSONWriter()
        write(e, to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
