import PayrollRules
import Testing
@testable import PayrollStore

/// `PayslipLineJSON` writes the stored lines without `JSONWriter`: byte for byte what
/// `CalcResponseEncoder` writes (the `payrun calc` contract), for every shape a line can take.
@Suite("Payslip line JSON: same bytes as the calc encoder")
struct PayslipLineJSONTests {
    /// Texts that exercise every escape and the eight-bytes-at-a-time scan (escapes before, at and after word boundaries).
    static let texts: [String] = [
        "", "a", "167h × 15,750원", "8h × 5주 × 15,750원 (10-05, 10-09)",
        "간이세액표 3,540~3,560천원, 공제대상가족 4명: 52,460원",
        "quote \" inside", "back\\slash", "\"", "\\", "tab\there", "new\nline", "cr\rlf\n", "\u{08}\u{0C}",
        "ctl \u{01}\u{1F} and \u{7F}", "1234567\"", "12345678\"", "123456789\\x", "éèê 😀 \u{0000} end",
        String(repeating: "가", count: 300) + "\"" + String(repeating: "b", count: 17),
    ]

    static let integers: [Int64] = [0, 1, -1, 9, 10, 99, 100, 15_750, -2_630_250, 999_999_999_999, Int64.max, Int64.min]

    static let rationals: [Rational] = [Rational(1), Rational(0), Rational(-7), Rational(3, 2), Rational(-1, 3),
                                       Rational(15_750 * 3, 7), Rational(Int64.max), Rational(Int64.max - 1, Int64.max)]

    /// A deterministic mix of every optional combination, code, number and text.
    static func earningLines(_ seed: Int) -> [EarningLine] {
        (0..<(seed % 9)).map { k in
            let n = seed &* 31 &+ k &* 7
            return EarningLine(code: EarningCode.allCases[n % EarningCode.allCases.count],
                               minutes: n % 3 == 0 ? nil : integers[n % integers.count],
                               rate: n % 4 == 0 ? nil : rationals[n % rationals.count],
                               multiplier: n % 5 == 0 ? nil : texts[(n / 5) % texts.count],
                               amount: integers[(n / 3) % integers.count], method: texts[(n / 2) % texts.count])
        }
    }

    static func deductionLines(_ seed: Int) -> [DeductionLine] {
        (0..<(seed % 8)).map { k in
            let n = seed &* 17 &+ k &* 11
            return DeductionLine(code: DeductionCode.allCases[n % DeductionCode.allCases.count],
                                 base: n % 3 == 0 ? nil : integers[n % integers.count],
                                 amount: integers[(n / 2) % integers.count], method: texts[(n / 3) % texts.count])
        }
    }

    @Test("earnings lines: 2,000 mixes of codes, optional fields, rationals, extreme integers and escapes")
    func earningsMatchTheWriter() {
        var mismatches = 0
        for seed in 0..<2_000 {
            let lines = Self.earningLines(seed)
            if PayslipJSON.earnings(lines) != PayslipJSON.earningsThroughWriter(lines) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        // Every text on its own, as method and as multiplier.
        for text in Self.texts {
            let line = [EarningLine(code: .night, minutes: 130, rate: Rational(3, 2), multiplier: text, amount: 17_063, method: text)]
            #expect(PayslipJSON.earnings(line) == PayslipJSON.earningsThroughWriter(line), "\(text.debugDescription)")
        }
        #expect(PayslipJSON.earnings([]) == Array("[]".utf8))
    }

    @Test("deductions lines: 2,000 mixes of codes, optional bases, extreme integers and escapes")
    func deductionsMatchTheWriter() {
        var mismatches = 0
        for seed in 0..<2_000 {
            let lines = Self.deductionLines(seed)
            if PayslipJSON.deductions(lines) != PayslipJSON.deductionsThroughWriter(lines) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        for text in Self.texts {
            let line = [DeductionLine(code: .incomeTax, base: nil, amount: 52_460, method: text)]
            #expect(PayslipJSON.deductions(line) == PayslipJSON.deductionsThroughWriter(line), "\(text.debugDescription)")
        }
        #expect(PayslipJSON.deductions([]) == Array("[]".utf8))
    }

    @Test("a stored line reads as the calc API's shape")
    func knownBytes() {
        let line = EarningLine(code: .basePay, minutes: 10_020, rate: Rational(15_750), multiplier: "1", amount: 2_630_250,
                               method: "167h × 15,750원")
        #expect(String(decoding: PayslipJSON.earnings([line]), as: UTF8.self)
                == #"[{"code":"base_pay","minutes":10020,"rate":15750,"multiplier":"1","amount":2630250,"method":"167h × 15,750원"}]"#)
    }
}

/// The static code names `PayslipLineJSON` writes are the codes' raw values.
@Suite("Payslip line JSON: static code names")
struct PayslipLineJSONCodeNameTests {
    @Test("every earning and deduction code's static name is its raw value")
    func namesAreRawValues() {
        for code in EarningCode.allCases {
            #expect(PayslipLineJSON.name(code).description == code.rawValue)
        }
        for code in DeductionCode.allCases {
            #expect(PayslipLineJSON.name(code).description == code.rawValue)
        }
    }
}
