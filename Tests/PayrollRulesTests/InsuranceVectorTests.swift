import Testing
@testable import PayrollRules

/// §2.6 of kr-payroll-rules.md: the 4insure simulator vectors for premium months 2026-07 … 2026-10.
struct InsuranceVector: CustomTestStringConvertible, Sendable {
    var taxable: Int64
    var pension: Int64, health: Int64, longTermCare: Int64, employment: Int64
    var testDescription: String { "taxable \(Money.grouped(taxable))원" }
}

let section26Vectors: [InsuranceVector] = [
    InsuranceVector(taxable: 200_000, pension: 19_470, health: 10_080, longTermCare: 1_320, employment: 1_800),
    InsuranceVector(taxable: 2_000_000, pension: 95_000, health: 71_900, longTermCare: 9_440, employment: 18_000),
    InsuranceVector(taxable: 2_345_678, pension: 111_380, health: 84_320, longTermCare: 11_080, employment: 21_110),
    InsuranceVector(taxable: 3_000_000, pension: 142_500, health: 107_850, longTermCare: 14_170, employment: 27_000),
    InsuranceVector(taxable: 3_001_500, pension: 142_540, health: 107_900, longTermCare: 14_170, employment: 27_010),
    InsuranceVector(taxable: 3_456_789, pension: 164_160, health: 124_270, longTermCare: 16_320, employment: 31_110),
    InsuranceVector(taxable: 5_000_000, pension: 237_500, health: 179_750, longTermCare: 23_620, employment: 45_000),
    InsuranceVector(taxable: 7_000_000, pension: 313_020, health: 251_650, longTermCare: 33_060, employment: 63_000),
    InsuranceVector(taxable: 10_000_000, pension: 313_020, health: 359_500, longTermCare: 47_240, employment: 90_000),
    InsuranceVector(taxable: 150_000_000, pension: 313_020, health: 4_591_740, longTermCare: 603_370, employment: 1_350_000),
]

/// The first and last premium month of the §2.6 range.
let section26Months = ["2026-07-01", "2026-10-01"]

@Suite("§2.6 insurance test vectors (4insure, premium months 2026-07 … 2026-10)")
struct InsuranceVectorTests {
    @Test("국민연금 matches §2.6", arguments: section26Vectors, section26Months)
    func nationalPension(_ v: InsuranceVector, month: String) throws {
        #expect(try insurance(taxable: v.taxable, premiumMonth: month).pension == v.pension)
    }

    @Test("건강보험 matches §2.6", arguments: section26Vectors, section26Months)
    func health(_ v: InsuranceVector, month: String) throws {
        #expect(try insurance(taxable: v.taxable, premiumMonth: month).health == v.health)
    }

    @Test("장기요양 matches §2.6 (exact 9448/71900)", arguments: section26Vectors, section26Months)
    func longTermCare(_ v: InsuranceVector, month: String) throws {
        #expect(try insurance(taxable: v.taxable, premiumMonth: month).longTermCare == v.longTermCare)
    }

    @Test("고용보험 matches §2.6", arguments: section26Vectors, section26Months)
    func employment(_ v: InsuranceVector, month: String) throws {
        #expect(try insurance(taxable: v.taxable, premiumMonth: month).employment == v.employment)
    }

    @Test("7,000,000 in 2026-01 … 06 (cap 6,370,000): 국민연금 302,570", arguments: ["2026-01-01", "2026-06-01"])
    func pensionCapFirstHalf2026(month: String) throws {
        #expect(try insurance(taxable: 7_000_000, premiumMonth: month).pension == 302_570)
    }

    @Test("from 2026-11 (ratio 0.1314) 장기요양 becomes 23,610 / 47,230 / 31,120 / 11,070",
          arguments: [(Int64(5_000_000), Int64(23_610)), (10_000_000, 47_230), (6_590_000, 31_120), (2_345_678, 11_070)],
          ["2026-11-01", "2026-12-01"])
    func longTermCareFromNovember2026(_ c: (taxable: Int64, ltc: Int64), month: String) throws {
        #expect(try insurance(taxable: c.taxable, premiumMonth: month).longTermCare == c.ltc)
    }

    @Test("October 2026 still uses the exact ratio: 5,000,000 → 23,620, not 23,610")
    func exactRatioThroughOctober2026() throws {
        #expect(try insurance(taxable: 5_000_000, premiumMonth: "2026-10-01").longTermCare == 23_620)
        #expect(try insurance(taxable: 5_000_000, premiumMonth: "2026-11-01").longTermCare == 23_610)
    }

    @Test("NPS band switches in July: 2025-06 cap 6,170,000 × 4.5%, 2025-07 cap 6,370,000")
    func pensionBandSwitchesInJuly() throws {
        #expect(try insurance(taxable: 7_000_000, premiumMonth: "2025-06-01").pension == 277_650)
        #expect(try insurance(taxable: 7_000_000, premiumMonth: "2025-07-01").pension == 286_650)
        #expect(try insurance(taxable: 100_000, premiumMonth: "2025-06-01").pension == 17_550)
        #expect(try insurance(taxable: 100_000, premiumMonth: "2025-07-01").pension == 18_000)
        #expect(try insurance(taxable: 100_000, premiumMonth: "2026-01-01").pension == 19_000)
    }

    @Test("NPS example 1,155,000 × 4.5% = 51,975 → 51,970 (§2.3)")
    func pensionFloor10() throws {
        #expect(try insurance(taxable: 1_155_000, premiumMonth: "2025-03-01").pension == 51_970)
    }

    @Test("건강보험 2025 premium limits: floor 9,890 and cap 4,504,170")
    func healthLimits2025() throws {
        #expect(try insurance(taxable: 200_000, premiumMonth: "2025-05-01").health == 9_890)
        #expect(try insurance(taxable: 150_000_000, premiumMonth: "2025-05-01").health == 4_504_170)
    }
}
