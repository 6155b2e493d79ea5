@testable import PayrollRules
import Testing

@Suite("MethodTextBlock and LineMethod")
struct MethodTextBlockTests {
    /// Builds of varied texts: digits, grouped amounts, rates, Korean literals and hours.
    static func builds(_ n: Int) -> [(inout MethodText) -> Void] {
        (0..<n).map { i in
            { (text: inout MethodText) in
                text.won(Int64(i) * 1_234_567 - 5_000)
                text.add("원 × ")
                text.rate(Rational(3_000_000, Int64(200 + i % 20)))
                text.add(" (기준소득월액, 천원 미만 절사; 과세급여 ")
                text.hours(Int64(i) * 37)
                text.add(") ")
                text.int(i)
            }
        }
    }

    @Test("texts written into one block are the bytes MethodText.make makes of the same calls, also past the block's end")
    func blockBytesEqualSeparateTexts() {
        for count in [0, 1, 5, 40] {  // 40 texts of ~100 bytes overflow the 1 KiB block
            let builds = Self.builds(count)
            let lines: [DeductionLine] = MethodTextBlock.with { texts in
                var lines = builds.map { DeductionLine(code: .incomeTax, base: nil, amount: 1, methodText: texts.text($0)) }
                let block = texts.finish()
                #expect(block.header <= MethodTextBlock.capacityBytes)
                for k in lines.indices { lines[k].methodText.attach(to: block) }
                return lines
            }
            for (line, build) in zip(lines, builds) {
                let expected = MethodText.make(build)
                #expect(line.method == expected)
                #expect(line.withMethodUTF8 { Array($0) } == Array(expected.utf8))
            }
        }
    }

    @Test("an empty text in a block is empty")
    func emptyText() {
        let line: EarningLine = MethodTextBlock.with { texts in
            let a = texts.text { $0.add("앞") }
            let empty = texts.text { _ in }
            var line = EarningLine(code: .night, minutes: 1, rate: Rational(1), multiplier: "1", amount: 1, methodText: empty)
            _ = a
            line.methodText.attach(to: texts.finish())
            return line
        }
        #expect(line.method == "" && line.methodText.isEmpty)
        #expect(line.withMethodUTF8 { $0.count } == 0)
    }

    @Test("a line whose method is in a block equals and hashes like the same line with its method as a String; setting method replaces it")
    func equalityAndHashing() {
        let (first, second): (DeductionLine, DeductionLine) = MethodTextBlock.with { texts in
            let m1 = texts.text { $0.add("1,000원 × 4.75%") }
            let m2 = texts.text { $0.add("건강보험료 × 장기요양 비율") }
            var a = DeductionLine(code: .nationalPension, base: 1_000, amount: 40, methodText: m1)
            var b = DeductionLine(code: .longTermCare, base: 10, amount: 0, methodText: m2)
            let block = texts.finish()
            a.methodText.attach(to: block)
            b.methodText.attach(to: block)
            return (a, b)
        }
        let plain = DeductionLine(code: .nationalPension, base: 1_000, amount: 40, method: "1,000원 × 4.75%")
        #expect(first == plain)
        #expect(first.hashValue == plain.hashValue)
        #expect(Set([first, plain]).count == 1)
        #expect(second.method == "건강보험료 × 장기요양 비율")
        #expect(first != DeductionLine(code: .nationalPension, base: 1_000, amount: 40, method: "1,000원 × 4.75"))
        var changed = second
        changed.method = "다른 계산"
        #expect(changed.method == "다른 계산" && second.method == "건강보험료 × 장기요양 비율")
        #expect(changed.withMethodUTF8 { Array($0) } == Array("다른 계산".utf8))
    }

    @Test("the single-line deduction API gives the batch path's text")
    func singleLineAPI() throws {
        let month = LocalDate(year: 2026, month: 3, day: 1)!
        let line = try SocialInsurance.employment(declaredBaseWon: nil, taxableWon: 2_345_678, premiumMonth: month)
        let batch = DeductionCalculator.computeLines(
            DeductionInput(premiumMonth: month, payDate: LocalDate(year: 2026, month: 3, day: 25)!, taxableWon: 2_345_678,
                           insurance: InsuranceFlags(nationalPension: false, health: false, employment: true),
                           insuranceBase: InsuranceBases(), tax: .none, family: 1, children8to20: 0,
                           withholdingRatio: 100, payByDate: []),
            try InsuranceSchedule.resolve(month), try WithholdingSchedule.resolve(LocalDate(year: 2026, month: 3, day: 25)!))
        #expect(batch == [line])
        #expect(line.method.hasPrefix("2,345,678원 × "))
    }
}
