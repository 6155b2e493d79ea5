import PayrollRules

/// The jsonb columns of `payrun.payslips`, in the calc API's shapes (calc-api.md "Response"):
/// earnings `[{code, minutes, rate, multiplier, amount, method}]`, deductions
/// `[{code, base, amount, method}]`, warnings `[{code, message, date}]`, error `{code, message, field}`.
/// `PayslipDecoder` reads them back into a `Payslip`.
enum PayslipJSON {
    static func earnings(_ lines: [EarningLine]) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginArray()
        for line in lines {
            w.beginObject()
            w.member("code", line.code.rawValue)
            if let minutes = line.minutes { w.member("minutes", minutes) }
            if let rate = line.rate { w.member("rate", rate) }
            if let multiplier = line.multiplier { w.member("multiplier", multiplier) }
            w.member("amount", line.amount)
            w.member("method", line.method)
            w.endObject()
        }
        w.endArray()
        return w.bytes
    }

    static func deductions(_ lines: [DeductionLine]) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        w.beginArray()
        for line in lines {
            w.beginObject()
            w.member("code", line.code.rawValue)
            if let base = line.base { w.member("base", base) }
            w.member("amount", line.amount)
            w.member("method", line.method)
            w.endObject()
        }
        w.endArray()
        return w.bytes
    }

    static func warnings(_ warnings: [PayrollWarning]) -> [UInt8] {
        var w = JSONWriter(capacity: 128)
        w.beginArray()
        for warning in warnings {
            w.beginObject()
            w.member("code", warning.code.rawValue)
            w.member("message", warning.message)
            if let date = warning.date { w.member("date", date.description) }
            w.endObject()
        }
        w.endArray()
        return w.bytes
    }

    static func error(_ e: PayrollError) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.member("code", e.code.rawValue)
        w.member("message", e.message)
        if let field = e.field { w.member("field", field) }
        w.endObject()
        return w.bytes
    }
}
