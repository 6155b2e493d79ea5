import Testing
@testable import PayrollRules

@Suite("DeductionCalculator: worked examples of §8 and calc-api rule 12")
struct DeductionCalculatorTests {
    static func amounts(_ r: DeductionResult) -> [Int64] { r.lines.map(\.amount) }

    // MARK: Example 1 (premium month 2026-11, payment 2026-11-25)

    @Test("Example 1: taxable 1,692,480 → 80,370 / 60,840 / 7,990 / 15,230 / 12,840 / 1,280, total 178,550")
    func example1() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 1_692_480, premiumMonth: "2026-11-01", payDate: "2026-11-25"))
        #expect(r.codes == DeductionCode.allCases)
        #expect(Self.amounts(r) == [80_370, 60_840, 7_990, 15_230, 12_840, 1_280])
        #expect(r.total == 178_550)
        #expect(1_692_480 - r.total == 1_513_930)
    }

    @Test("Example 1 method texts show base, exact rate and rounding")
    func example1Methods() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 1_692_480, premiumMonth: "2026-11-01", payDate: "2026-11-25"))
        let m = r.lines.map(\.method)
        #expect(m[0].hasPrefix("1,692,000원 × 4.75% (기준소득월액, 천원 미만 절사"))
        #expect(m[0].contains("1,692,480원으로 추정"))
        #expect(m[1].hasPrefix("1,692,480원 × 3.595% (보수월액"))
        #expect(m[2].hasPrefix("60,840원 × 0.1314 "))
        #expect(m[3].hasPrefix("1,692,480원 × 0.9% (보수"))
        #expect(m[4] == "간이세액표 1,690~1,700천원, 공제대상가족 1명: 12,840원")
        #expect(m[5].hasPrefix("12,840원 × 10% "))
        #expect(r.lines.map(\.base) == [1_692_000, 1_692_480, 60_840, 1_692_480, 1_692_480, 12_840])
    }

    @Test("Example 1 in October 2026 prints the exact 장기요양 ratio 0.9448% ÷ 7.19% (same 7,990)")
    func example1OctoberRatioText() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 1_692_480, premiumMonth: "2026-10-01", payDate: "2026-10-25"))
        #expect(r.amount(.longTermCare) == 7_990)
        #expect(r.lines[2].method.hasPrefix("60,840원 × 0.9448% ÷ 7.19% "))
    }

    @Test("Example 1, 5인 미만 variant: gross 1,486,080 → 70,580 / 53,420 / 7,010 / 13,370 / 8,560 / 850, net 1,332,290")
    func example1UnderFive() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 1_486_080, premiumMonth: "2026-11-01", payDate: "2026-11-25"))
        #expect(Self.amounts(r) == [70_580, 53_420, 7_010, 13_370, 8_560, 850])
        #expect(1_486_080 - r.total == 1_332_290)
    }

    @Test("Example 1, November 2025 variant: gross 1,644,920 → 73,980 / 58,310 / 7,550 / 14,800 / 11,810 / 1,180, net 1,477,290")
    func example1November2025() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 1_644_920, premiumMonth: "2025-11-01", payDate: "2025-11-25"))
        #expect(Self.amounts(r) == [73_980, 58_310, 7_550, 14_800, 11_810, 1_180])
        #expect(1_644_920 - r.total == 1_477_290)
    }

    // MARK: Example 2 (3,000,000, family 1)

    @Test("Example 2, 2026-10: 142,500 / 107,850 / 14,170 / 27,000 / 74,350 / 7,430; total 373,300; net 2,626,700")
    func example2In2026() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25"))
        #expect(Self.amounts(r) == [142_500, 107_850, 14_170, 27_000, 74_350, 7_430])
        #expect(r.total == 373_300)
        #expect(3_000_000 - r.total == 2_626_700)
    }

    @Test("Example 2, 2025-10: 135,000 / 106,350 / 13,770 / 27,000 / 74,350 / 7,430; total 363,900; net 2,636,100")
    func example2In2025() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 3_000_000, premiumMonth: "2025-10-01", payDate: "2025-10-25"))
        #expect(Self.amounts(r) == [135_000, 106_350, 13_770, 27_000, 74_350, 7_430])
        #expect(r.total == 363_900)
        #expect(3_000_000 - r.total == 2_636_100)
    }

    @Test("Example 2 from 2026-11: 장기요양 107,850 × 0.1314 → 14,170 (the same)")
    func example2November2026() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 3_000_000, premiumMonth: "2026-11-01", payDate: "2026-11-25"))
        #expect(r.amount(.longTermCare) == 14_170)
    }

    @Test("Example 2 at 80% and 120% in 2026: 59,480 / 5,940 and 89,220 / 8,920")
    func example2Ratios() throws {
        let low = try DeductionCalculator.compute(deductionInput(taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", ratio: 80))
        let high = try DeductionCalculator.compute(deductionInput(taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", ratio: 120))
        #expect([low.amount(.incomeTax), low.amount(.localIncomeTax)] == [59_480, 5_940])
        #expect([high.amount(.incomeTax), high.amount(.localIncomeTax)] == [89_220, 8_920])
        #expect(low.lines[4].method.contains("× 80%"))
    }

    // MARK: Example 3 (3,300,000 taxable, family 4, two children)

    @Test("Example 3 insurance (2026-10): 156,750 / 118,630 / 15,580 / 29,700; tax by payment date 7,420 (Feb) / 0 (Oct)")
    func example3() throws {
        let oct = try DeductionCalculator.compute(deductionInput(taxable: 3_300_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", family: 4, children: 2))
        #expect(Self.amounts(oct) == [156_750, 118_630, 15_580, 29_700, 0, 0])
        let feb = try DeductionCalculator.compute(deductionInput(taxable: 3_300_000, premiumMonth: "2026-02-01", payDate: "2026-02-25", family: 4, children: 2))
        #expect(Self.amounts(feb) == [156_750, 118_630, 15_580, 29_700, 7_420, 740])
        #expect(oct.lines[4].method.contains("8~20세 자녀 2명 45,830원"))
    }

    // MARK: Example 4 (12,000,000, family 2)

    @Test("Example 4, 2026-10: 313,020 / 431,400 / 56,680 / 108,000 / 2,142,570 / 214,250; total 3,265,920; net 8,734,080")
    func example4In2026() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 12_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", family: 2))
        #expect(Self.amounts(r) == [313_020, 431_400, 56_680, 108_000, 2_142_570, 214_250])
        #expect(r.total == 3_265_920)
        #expect(12_000_000 - r.total == 8_734_080)
        #expect(r.lines[4].method.contains("10,000천원 초과"))
    }

    @Test("Example 4, 2025-10: 286,650 / 425,400 / 55,090 / 108,000 / 2,142,570 / 214,250; net 8,768,040")
    func example4In2025() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 12_000_000, premiumMonth: "2025-10-01", payDate: "2025-10-25", family: 2))
        #expect(Self.amounts(r) == [286_650, 425_400, 55_090, 108_000, 2_142_570, 214_250])
        #expect(12_000_000 - r.total == 8_768_040)
    }

    // MARK: Example 6 (daily and 3.3%) through compute

    @Test("Example 6: 일용 200,000 × 5 days, employment insurance only → 고용 9,000, 소득세 6,750, 지방세 670")
    func example6Daily() throws {
        let days = (0..<5).map { DatedAmount(date: d("2026-11-02").adding(days: $0), amount: Rational(200_000)) }
        let r = try DeductionCalculator.compute(deductionInput(
            taxable: 1_000_000, premiumMonth: "2026-11-01", payDate: "2026-11-06", tax: .daily,
            insurance: InsuranceFlags(nationalPension: false, health: false, employment: true), payByDate: days))
        #expect(r.codes == [.employmentInsurance, .incomeTax, .localIncomeTax])
        #expect(Self.amounts(r) == [9_000, 6_750, 670])
    }

    @Test("Example 6: 일용 single 180,000 day → tax lines present with 0 (소액부징수)")
    func example6DailySmall() throws {
        let r = try DeductionCalculator.compute(deductionInput(
            taxable: 180_000, premiumMonth: "2026-11-01", payDate: "2026-11-02", tax: .daily,
            insurance: InsuranceFlags(nationalPension: false, health: false, employment: false),
            payByDate: [DatedAmount(date: d("2026-11-02"), amount: Rational(180_000))]))
        #expect(r.codes == [.incomeTax, .localIncomeTax])
        #expect(Self.amounts(r) == [0, 0])
        #expect(r.lines[0].method.contains("소액부징수"))
    }

    @Test("Example 6: 3.3% of 22,421 → 670 / 60; of 500,000 → 15,000 / 1,500")
    func example6Business() throws {
        let none = InsuranceFlags(nationalPension: false, health: false, employment: false)
        let small = try DeductionCalculator.compute(deductionInput(taxable: 22_421, premiumMonth: "2026-11-01", payDate: "2026-11-25", tax: .business33, insurance: none))
        let large = try DeductionCalculator.compute(deductionInput(taxable: 500_000, premiumMonth: "2026-11-01", payDate: "2026-11-25", tax: .business33, insurance: none))
        #expect(Self.amounts(small) == [670, 60])
        #expect(Self.amounts(large) == [15_000, 1_500])
        #expect(small.lines[0].method == "22,421원 × 3% (사업소득 원천징수, 10원 미만 절사)")
    }

    // MARK: calc-api rule 12 (coverage flags and declared bases)

    @Test("tax none: no tax lines; insurance lines stay")
    func taxNone() throws {
        let r = try DeductionCalculator.compute(deductionInput(taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", tax: .none))
        #expect(r.codes == [.nationalPension, .healthInsurance, .longTermCare, .employmentInsurance])
    }

    @Test("flags alone decide coverage; 장기요양 follows the health flag")
    func flagsDecideCoverage() throws {
        let noHealth = try DeductionCalculator.compute(deductionInput(
            taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25",
            insurance: InsuranceFlags(nationalPension: true, health: false, employment: true)))
        #expect(noHealth.codes == [.nationalPension, .employmentInsurance, .incomeTax, .localIncomeTax])
        let onlyHealth = try DeductionCalculator.compute(deductionInput(
            taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", tax: .none,
            insurance: InsuranceFlags(nationalPension: false, health: true, employment: false)))
        #expect(onlyHealth.codes == [.healthInsurance, .longTermCare])
        #expect(Self.amounts(onlyHealth) == [107_850, 14_170])
    }

    @Test("a declared base replaces taxable pay for its own scheme only, and says so")
    func declaredBases() throws {
        let r = try DeductionCalculator.compute(deductionInput(
            taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25",
            bases: InsuranceBases(nationalPensionWon: 2_000_000, healthWon: 5_000_000, employmentWon: nil)))
        #expect(Self.amounts(r) == [95_000, 179_750, 23_620, 27_000, 74_350, 7_430])
        #expect(r.lines[0].method.contains("신고 기준"))
        #expect(r.lines[3].method.contains("추정"))
    }

    @Test("a base of 0 gives 0 with no floor (pension and health floors do not apply)")
    func zeroBase() throws {
        let declaredZero = try DeductionCalculator.compute(deductionInput(
            taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", tax: .none,
            bases: InsuranceBases(nationalPensionWon: 0, healthWon: 0, employmentWon: 0)))
        #expect(Self.amounts(declaredZero) == [0, 0, 0, 0])
        let noPay = try DeductionCalculator.compute(deductionInput(taxable: 0, premiumMonth: "2026-10-01", payDate: "2026-10-25"))
        #expect(Self.amounts(noPay) == [0, 0, 0, 0, 0, 0])
    }

    @Test("a small positive base still gets the floors: 200,000 → 19,470 and 10,080")
    func smallBaseGetsFloors() throws {
        let r = try DeductionCalculator.compute(deductionInput(
            taxable: 0, premiumMonth: "2026-10-01", payDate: "2026-10-25", tax: .none,
            bases: InsuranceBases(nationalPensionWon: 200_000, healthWon: 200_000, employmentWon: 200_000)))
        #expect(Self.amounts(r) == [19_470, 10_080, 1_320, 1_800])
        #expect(r.lines[0].method.contains("하한 410,000원 적용"))
        #expect(r.lines[1].method.contains("→ 하한 10,080원"))
    }

    // MARK: Bad inputs

    static func error(_ input: DeductionInput) -> PayrollError? {
        do { _ = try DeductionCalculator.compute(input); return nil } catch { return error }
    }

    @Test("premium months outside 2025-01 … 2026-12 are unsupported (field periodEnd)", arguments: ["2024-12-01", "2027-01-01"])
    func premiumMonthOutsideTables(month: String) {
        let e = Self.error(deductionInput(taxable: 3_000_000, premiumMonth: month, payDate: "2026-10-25"))
        #expect(e?.code == .unsupported && e?.field == "periodEnd")
    }

    @Test("payment date before 2024-03-01 is unsupported (field payDate)")
    func payDateBeforeTables() {
        let e = Self.error(deductionInput(taxable: 3_000_000, premiumMonth: "2025-01-01", payDate: "2024-02-29"))
        #expect(e?.code == .unsupported && e?.field == "payDate")
    }

    @Test("family 0, ratio 90, negative base and negative taxable pay are invalid_value naming the calc field")
    func invalidValues() {
        let cases: [(DeductionInput, String)] = [
            (deductionInput(taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", family: 0), "employee.family"),
            (deductionInput(taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", ratio: 90), "employee.withholdingRatio"),
            (deductionInput(taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25", family: 1, children: 1), "employee.children8to20"),
            (deductionInput(taxable: 3_000_000, premiumMonth: "2026-10-01", payDate: "2026-10-25",
                            bases: InsuranceBases(healthWon: -1)), "contract.insuranceBase.health"),
            (deductionInput(taxable: -5, premiumMonth: "2026-10-01", payDate: "2026-10-25"), "taxable"),
        ]
        for (input, field) in cases {
            let e = Self.error(input)
            #expect(e?.code == .invalidValue && e?.field == field, "\(field)")
        }
    }
}
