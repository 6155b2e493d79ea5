import Testing
@testable import PayrollRules

/// The response format of calc-api.md: key order, omitted nil keys, rates, escaping.
@Suite("calc API: response encoding")
struct CalcAPIEncodingTests {
    static func payslip() -> Payslip {
        var minutes = MinuteBuckets()
        minutes.worked = 7200
        minutes.regular = 7200
        minutes.night = 2400
        minutes.weeklyAllowance = 1440
        return Payslip(
            employeeId: "e-1", ruleSet: "kr-2026.11", minutes: minutes,
            earnings: [
                EarningLine(code: .basePay, minutes: 7200, rate: Rational(10320), multiplier: "1", amount: 1_238_400,
                            method: "120h × 10,320원"),
                EarningLine(code: .night, minutes: 2400, rate: Rational(3_000_000, 209), multiplier: "0.5", amount: 206_400,
                            method: "40h × 10,320원 × 0.5"),
                EarningLine(code: .nonTaxableMeals, minutes: nil, rate: nil, multiplier: nil, amount: 200_000, method: "식대"),
            ],
            gross: 1_644_800, nonTaxable: 200_000, taxable: 1_444_800,
            deductions: [
                DeductionLine(code: .nationalPension, base: 1_444_000, amount: 68_590, method: "1,444,000원 × 4.75%"),
                DeductionLine(code: .incomeTax, base: nil, amount: 0, method: "간이세액표"),
            ],
            totalDeductions: 68_590, net: 1_576_210,
            warnings: [
                PayrollWarning(code: .belowMinimumWage, message: "below", date: LocalDate(year: 2026, month: 11, day: 3)),
                PayrollWarning(code: .insuranceBaseEstimated, message: "estimated"),
            ])
    }

    @Test("a payslip is one compact line with the contract's key order; nil minutes/rate/multiplier/base/date are omitted; p/q rates are strings")
    func payslipExactBytes() {
        let expected = #"{"employeeId":"e-1","ruleSet":"kr-2026.11","minutes":{"worked":7200,"regular":7200,"overtime":0,"partTimeExcess":0,"night":2400,"holiday":0,"holidayOver8":0,"weeklyAllowance":1440,"paidHoliday":0},"earnings":[{"code":"base_pay","minutes":7200,"rate":10320,"multiplier":"1","amount":1238400,"method":"120h × 10,320원"},{"code":"night","minutes":2400,"rate":"3000000/209","multiplier":"0.5","amount":206400,"method":"40h × 10,320원 × 0.5"},{"code":"non_taxable_meals","amount":200000,"method":"식대"}],"gross":1644800,"nonTaxable":200000,"taxable":1444800,"deductions":[{"code":"national_pension","base":1444000,"amount":68590,"method":"1,444,000원 × 4.75%"},{"code":"income_tax","amount":0,"method":"간이세액표"}],"totalDeductions":68590,"net":1576210,"warnings":[{"code":"below_minimum_wage","message":"below","date":"2026-11-03"},{"code":"insurance_base_estimated","message":"estimated"}]}"#
        #expect(CalcResponseEncoder.encode(Self.payslip()) == expected)
    }

    @Test("the encoded payslip parses back as JSON with the same numbers")
    func payslipRoundTrips() throws {
        let json = try JSONParser.parse(CalcResponseEncoder.encode(Self.payslip()))
        guard case .object(let o) = json else { Issue.record("not an object"); return }
        #expect(o.keys == ["employeeId", "ruleSet", "minutes", "earnings", "gross", "nonTaxable", "taxable", "deductions",
                           "totalDeductions", "net", "warnings"])
        #expect(o["net"] == .number(JSONNumber(literal: "1576210", int64: 1_576_210)))
    }

    @Test("empty earnings, deductions and warnings are empty arrays")
    func emptyArrays() {
        let p = Payslip(employeeId: "x", ruleSet: "kr-2025.01", minutes: MinuteBuckets(), earnings: [], gross: 0, nonTaxable: 0,
                        taxable: 0, deductions: [], totalDeductions: 0, net: 0, warnings: [])
        #expect(CalcResponseEncoder.encode(p).hasSuffix(#""earnings":[],"gross":0,"nonTaxable":0,"taxable":0,"deductions":[],"totalDeductions":0,"net":0,"warnings":[]}"#))
    }

    @Test("an error is {\"error\":{code,message,field}}; field is omitted when nil")
    func errors() {
        #expect(CalcResponseEncoder.encode(PayrollError(.invalidValue, "shift ends before it starts", field: "shifts[3].end"))
                == #"{"error":{"code":"invalid_value","message":"shift ends before it starts","field":"shifts[3].end"}}"#)
        #expect(CalcResponseEncoder.encode(PayrollError(.invalidJSON, "unterminated object (at byte 28)"))
                == #"{"error":{"code":"invalid_json","message":"unterminated object (at byte 28)"}}"#)
    }

    @Test("string escaping: quotes, backslash, every control character; Korean and emoji pass through as UTF-8")
    func escaping() throws {
        var w = JSONWriter()
        let nasty = "\"q\" \\ / \n\r\t\u{08}\u{0C}\u{00}\u{01}\u{1F}\u{7F} 주휴수당 😀"
        w.value(nasty)
        let text = String(decoding: w.bytes, as: UTF8.self)
        #expect(text == #""\"q\" \\ / \n\r\t\b\f\u0000\u0001\u001f"# + "\u{7F} 주휴수당 😀\"")
        // And it parses back to the same string.
        #expect(try JSONParser.parse(w.bytes) == .string(nasty))
    }

    @Test("integers: zero, negative, Int64 extremes")
    func integers() {
        var w = JSONWriter()
        w.beginArray()
        for v: Int64 in [0, 7, -7, 1_692_480, Int64.max, Int64.min] { w.value(v) }
        w.endArray()
        #expect(String(decoding: w.bytes, as: UTF8.self) == "[0,7,-7,1692480,9223372036854775807,-9223372036854775808]")
    }

    @Test("nested containers get commas in the right places")
    func nesting() {
        var w = JSONWriter()
        w.beginObject()
        w.key("a"); w.beginArray(); w.beginObject(); w.endObject(); w.beginArray(); w.endArray(); w.value(true); w.null(); w.endArray()
        w.member("b", "c")
        w.key("d"); w.beginObject(); w.member("e", Rational(1, 3)); w.member("f", Rational(6, 3)); w.endObject()
        w.endObject()
        w.newline()
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"a":[{},[],true,null],"b":"c","d":{"e":"1/3","f":2}}"# + "\n")
    }

    @Test("ruleSet is kr-YYYY.MM of the premium month")
    func ruleSetFormat() {
        #expect(PayrollCalculator.ruleSet(premiumMonth: LocalDate(year: 2026, month: 11, day: 1)!) == "kr-2026.11")
        #expect(PayrollCalculator.ruleSet(premiumMonth: LocalDate(year: 2025, month: 1, day: 1)!) == "kr-2025.01")
    }
}

/// The strict JSON parser under the calc API.
@Suite("calc API: JSON parser")
struct CalcAPIJSONParserTests {
    @Test("numbers keep exact Int64 values; fractions, exponents and out-of-range integers are non-integers")
    func numbers() throws {
        let v = try JSONParser.parse("[0, -0, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1.5, 1e3, 10.0]")
        guard case .array(let a) = v else { Issue.record("not an array"); return }
        let ints = a.map { value -> Int64? in if case .number(let n) = value { return n.int64 } else { return nil } }
        #expect(ints == [0, 0, Int64.max, Int64.min, nil, nil, nil, nil])
    }

    @Test("booleans are never numbers and numbers never booleans")
    func booleansAreNotNumbers() throws {
        #expect(try JSONParser.parse("[true, false, 1, 0]") == .array([
            .bool(true), .bool(false), .number(JSONNumber(literal: "1", int64: 1)), .number(JSONNumber(literal: "0", int64: 0)),
        ]))
    }

    @Test("escapes and surrogate pairs decode; raw UTF-8 Korean passes")
    func escapes() throws {
        #expect(try JSONParser.parse(#""a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\uD83D\uDE00 주휴""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\tAé😀 주휴"))
    }

    @Test("members keep input order; whitespace around tokens is allowed")
    func objectOrder() throws {
        let v = try JSONParser.parse(" \t{ \"z\" : 1 ,\n\"a\":[ ] } \r\n")
        guard case .object(let o) = v else { Issue.record("not an object"); return }
        #expect(o.keys == ["z", "a"])
    }

    @Test("duplicate keys are rejected also in large objects")
    func duplicateKeysLarge() {
        let members = (0..<40).map { #""k\#($0)": \#($0)"# } + [#""k7": 0"#]
        #expect(throws: PayrollError.self) { try JSONParser.parse("{" + members.joined(separator: ",") + "}") }
    }
}
