import Foundation

/// One `payrun tax` request (calc-api.md): `{"monthlyPay": 3000000, "family": 1,
/// "children8to20": 0, "ratio": 100, "payDate": "2026-11-25"}`.
public struct TaxRequest: Sendable, Hashable {
    /// 월급여액, 비과세 excluded.
    public var monthlyPayWon: Int64
    public var family: Int
    public var children8to20: Int
    /// 80, 100 or 120; default 100.
    public var ratio: Int
    public var payDate: LocalDate

    public init(monthlyPayWon: Int64, family: Int, children8to20: Int, ratio: Int = 100, payDate: LocalDate) {
        self.monthlyPayWon = monthlyPayWon
        self.family = family
        self.children8to20 = children8to20
        self.ratio = ratio
        self.payDate = payDate
    }
}

/// The JSON side of `payrun tax`: strict decoding of one request line (unknown fields, missing
/// fields and wrong types are errors naming the field) and the response lines, keys in the
/// documented order. Self-contained on purpose: `payrun calc` has its own request decoder.
public enum TaxAPI {
    /// The request fields, in documented order.
    static let requiredFields = ["monthlyPay", "family", "children8to20", "payDate"]
    static let knownFields: Set<String> = ["monthlyPay", "family", "children8to20", "ratio", "payDate"]

    /// Computes the response line (no trailing newline) for one request line; `ok` is false when
    /// the response is an error.
    public static func respond(toLine line: Data) -> (json: String, ok: Bool) {
        do {
            let request = try decode(line)
            let result = try IncomeTax.simplified(monthlyPayWon: request.monthlyPayWon, family: request.family,
                                                  children8to20: request.children8to20, ratio: request.ratio,
                                                  payDate: request.payDate)
            return (encode(result), true)
        } catch {
            return (encode(error), false)
        }
    }

    /// Decodes one request line strictly.
    public static func decode(_ line: Data) throws(PayrollError) -> TaxRequest {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed])
        } catch {
            throw PayrollError(.invalidJSON, "the line is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else {
            throw PayrollError(.invalidJSON, "a request must be a JSON object")
        }
        if let unknown = object.keys.filter({ !knownFields.contains($0) }).sorted().first {
            throw PayrollError(.unknownField, "unknown field \"" + unknown + "\" (expected monthlyPay, family, children8to20, ratio, payDate)",
                               field: unknown)
        }
        for field in requiredFields where object[field] == nil {
            throw PayrollError(.missingField, "required field \"" + field + "\" is missing", field: field)
        }
        let monthlyPay = try integer(object["monthlyPay"], "monthlyPay")
        let family = try integer(object["family"], "family")
        let children = try integer(object["children8to20"], "children8to20")
        let ratio: Int64 = object["ratio"] == nil || object["ratio"] is NSNull ? 100 : try integer(object["ratio"], "ratio")
        guard let dateText = object["payDate"] as? String, let payDate = LocalDate(iso: dateText) else {
            throw PayrollError(.invalidValue, "payDate must be a date YYYY-MM-DD", field: "payDate")
        }
        // Range checks beyond Int's size are IncomeTax's (it names the same fields).
        return TaxRequest(monthlyPayWon: monthlyPay, family: clampToInt(family), children8to20: clampToInt(children),
                          ratio: clampToInt(ratio), payDate: payDate)
    }

    /// A JSON integer (not a boolean, not a fraction, within `Int64`).
    static func integer(_ value: Any?, _ field: String) throws(PayrollError) -> Int64 {
        if let number = value as? NSNumber {
            let type = String(cString: number.objCType)
            // Booleans arrive as NSNumber with type "c"; fractions and exponents as "d".
            if type != "c" && type != "B" && type != "d" && type != "f", let exact = value as? Int64 {
                return exact
            }
        }
        throw PayrollError(.invalidValue, field + " must be an integer", field: field)
    }

    /// Int64 and Int are the same width on the platforms payrun supports; out-of-range values
    /// are rejected by the range checks that follow anyway.
    static func clampToInt(_ v: Int64) -> Int { Int(clamping: v) }

    // MARK: Responses

    /// `{"incomeTax":74350,"localIncomeTax":7430,"tableCell":74350,"childDeduction":0}`.
    public static func encode(_ result: WithholdingResult) -> String {
        "{\"incomeTax\":" + String(result.incomeTax) + ",\"localIncomeTax\":" + String(result.localIncomeTax)
            + ",\"tableCell\":" + String(result.tableCell) + ",\"childDeduction\":" + String(result.childDeduction) + "}"
    }

    /// `{"error":{"code":"…","message":"…","field":"…"}}`; `field` is null when the error names none.
    public static func encode(_ error: PayrollError) -> String {
        "{\"error\":{\"code\":" + quoted(error.code.rawValue) + ",\"message\":" + quoted(error.message)
            + ",\"field\":" + (error.field.map(quoted) ?? "null") + "}}"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
