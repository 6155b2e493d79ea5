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

/// The JSON side of `payrun tax`: the same strict parser, request-object rules and line
/// discipline as `payrun calc` (`RequestObject`, `JSONLineResponder`), so both commands treat
/// malformed JSON, repeated keys, unknown or missing fields, `null`, booleans and non-integer
/// numbers identically; the response keys are in the documented order.
public enum TaxAPI {
    /// The members of a request object, in documented order.
    static let fields = ["monthlyPay", "family", "children8to20", "ratio", "payDate"]

    /// Appends the response to one request line and a newline to `out`.
    public static func respond(to line: JSONLinesReader.Line, into out: inout JSONWriter) -> JSONLineOutcome {
        JSONLineResponder.respond(to: line, into: &out, compute: compute, write: write)
    }

    /// Decodes and computes one request line.
    static func compute(_ line: UnsafeBufferPointer<UInt8>) throws(PayrollError) -> WithholdingResult {
        let request = try decode(line)
        return try IncomeTax.simplified(monthlyPayWon: request.monthlyPayWon, family: request.family,
                                        children8to20: request.children8to20, ratio: request.ratio, payDate: request.payDate)
    }

    /// Decodes one request line strictly. `null` for `ratio` means its default (100); `null` for a
    /// required field is `missing_field`, as in `payrun calc`.
    public static func decode(_ line: UnsafeBufferPointer<UInt8>) throws(PayrollError) -> TaxRequest {
        let o = try RequestObject.requestLine(line, allowed: fields)
        // Ranges here only keep the values inside Int; `IncomeTax` gives the precise messages
        // (monthly pay, family ≥ 1, children ≤ family, ratio ∈ {80, 100, 120}) naming the same fields.
        let any: ClosedRange<Int64> = Int64.min...Int64.max
        let wide: ClosedRange<Int64> = -1_000_000...1_000_000
        return TaxRequest(monthlyPayWon: try o.requiredInt("monthlyPay", any),
                          family: Int(try o.requiredInt("family", wide)),
                          children8to20: Int(try o.requiredInt("children8to20", wide)),
                          ratio: Int(try o.optionalInt("ratio", wide) ?? 100),
                          payDate: try o.requiredDate("payDate"))
    }

    public static func decode(_ text: String) throws(PayrollError) -> TaxRequest {
        try UTF8Text.withBytes(text) { bytes throws(PayrollError) in try decode(bytes) }
    }

    /// `{"incomeTax":74350,"localIncomeTax":7430,"tableCell":74350,"childDeduction":0}`.
    public static func write(_ result: WithholdingResult, to w: inout JSONWriter) {
        w.beginObject()
        w.member("incomeTax", result.incomeTax)
        w.member("localIncomeTax", result.localIncomeTax)
        w.member("tableCell", result.tableCell)
        w.member("childDeduction", result.childDeduction)
        w.endObject()
    }
}
