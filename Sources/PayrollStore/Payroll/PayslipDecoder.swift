import PayrollRules

/// Reads the JSON columns written by `PayslipJSON` back into PayrollRules values (as text: the lines
/// come back exactly as written since 0014, warnings and error in jsonb's normalized spelling).
enum PayslipDecoder {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func array(_ text: String) throws -> [JSONObject] {
        guard case .array(let items) = try JSONParser.parse(text) else { throw Malformed(description: "expected a JSON array: \(text.prefix(80))") }
        return try items.map { item in
            guard case .object(let object) = item else { throw Malformed(description: "expected an object in \(text.prefix(80))") }
            return object
        }
    }

    static func string(_ o: JSONObject, _ key: String) throws -> String {
        guard case .string(let s)? = o[key] else { throw Malformed(description: "missing string '\(key)'") }
        return s
    }

    static func int(_ o: JSONObject, _ key: String) throws -> Int64? {
        guard let value = o[key] else { return nil }
        guard case .number(let n) = value, let v = n.int64 else { throw Malformed(description: "'\(key)' is not an integer") }
        return v
    }

    static func rational(_ o: JSONObject, _ key: String) throws -> Rational? {
        switch o[key] {
        case nil: return nil
        case .number(let n)?:
            guard let v = n.int64 else { throw Malformed(description: "'\(key)' is not an integer") }
            return Rational(v)
        case .string(let s)?:
            let parts = s.split(separator: "/")
            guard parts.count == 2, let p = Int64(parts[0]), let q = Int64(parts[1]), q > 0 else {
                throw Malformed(description: "'\(key)' is not p/q: \(s)")
            }
            return Rational(p, q)
        default: throw Malformed(description: "'\(key)' is neither a number nor p/q")
        }
    }

    static func earnings(_ text: String) throws -> [EarningLine] {
        try array(text).map { o in
            let codeText = try string(o, "code")
            guard let code = EarningCode(rawValue: codeText) else { throw Malformed(description: "unknown earning code \(codeText)") }
            let multiplier: String? = try o["multiplier"] == nil ? nil : string(o, "multiplier")
            return EarningLine(code: code, minutes: try int(o, "minutes"), rate: try rational(o, "rate"), multiplier: multiplier,
                               amount: try int(o, "amount") ?? 0, method: try string(o, "method"))
        }
    }

    static func deductions(_ text: String) throws -> [DeductionLine] {
        try array(text).map { o in
            let codeText = try string(o, "code")
            guard let code = DeductionCode(rawValue: codeText) else { throw Malformed(description: "unknown deduction code \(codeText)") }
            return DeductionLine(code: code, base: try int(o, "base"), amount: try int(o, "amount") ?? 0, method: try string(o, "method"))
        }
    }

    static func warnings(_ text: String) throws -> [PayrollWarning] {
        try array(text).map { o in
            let codeText = try string(o, "code")
            guard let code = WarningCode(rawValue: codeText) else { throw Malformed(description: "unknown warning code \(codeText)") }
            let date: LocalDate? = try o["date"] == nil ? nil : LocalDate(iso: string(o, "date"))
            return PayrollWarning(code: code, message: try string(o, "message"), date: date)
        }
    }

    static func error(_ text: String) throws -> PayrollError {
        guard case .object(let o) = try JSONParser.parse(text) else { throw Malformed(description: "error is not an object") }
        let code = PayrollError.Code(rawValue: try string(o, "code")) ?? .invalidValue
        let field: String? = try o["field"] == nil ? nil : string(o, "field")
        return PayrollError(code, try string(o, "message"), field: field)
    }
}
