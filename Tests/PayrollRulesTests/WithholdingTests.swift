import Testing
@testable import PayrollRules

@Suite("Income tax withholding (§5.5, §6)")
struct WithholdingTests {
    // MARK: Child deduction by payment date (Example 3)

    @Test("Example 3, paid 2026-02-25 (old note 3): 36,580 − 29,160 = 7,420, 지방세 740")
    func example3OldChildAmounts() throws {
        let r = try IncomeTax.simplified(monthlyPayWon: 3_300_000, family: 4, children8to20: 2, ratio: 100, payDate: d("2026-02-25"))
        #expect(r == WithholdingResult(incomeTax: 7_420, localIncomeTax: 740, tableCell: 36_580, childDeduction: 29_160))
    }

    @Test("Example 3, paid 2026-10-25 (new note 3): 36,580 − 45,830 < 0 → 0; childDeduction stays 45,830")
    func example3NewChildAmounts() throws {
        let r = try IncomeTax.simplified(monthlyPayWon: 3_300_000, family: 4, children8to20: 2, ratio: 100, payDate: d("2026-10-25"))
        #expect(r == WithholdingResult(incomeTax: 0, localIncomeTax: 0, tableCell: 36_580, childDeduction: 45_830))
    }

    @Test("Example 3, paid 2026-10-25, one child only: 15,750 / 1,570")
    func example3OneChild() throws {
        let r = try IncomeTax.simplified(monthlyPayWon: 3_300_000, family: 4, children8to20: 1, ratio: 100, payDate: d("2026-10-25"))
        #expect(r == WithholdingResult(incomeTax: 15_750, localIncomeTax: 1_570, tableCell: 36_580, childDeduction: 20_830))
    }

    @Test("note 3 switches on the payment date 2026-03-01, not the work month")
    func childAmountsSwitchOnPaymentDate() throws {
        let feb = try IncomeTax.simplified(monthlyPayWon: 3_300_000, family: 4, children8to20: 1, ratio: 100, payDate: d("2026-02-28"))
        let mar = try IncomeTax.simplified(monthlyPayWon: 3_300_000, family: 4, children8to20: 1, ratio: 100, payDate: d("2026-03-01"))
        #expect(feb.childDeduction == 12_500)
        #expect(mar.childDeduction == 20_830)
    }

    @Test("three or more children: 29,160 + 25,000 each (old); 45,830 + 33,330 each (new: 3 → 79,160, 4 → 112,490)")
    func manyChildren() throws {
        let old = WithholdingParameters.childDeduction.value(on: d("2025-01-10"))!
        let new = WithholdingParameters.childDeduction.value(on: d("2026-11-25"))!
        #expect([0, 1, 2, 3].map { old.amountWon(children: $0) } == [0, 12_500, 29_160, 54_160])
        #expect([0, 1, 2, 3, 4].map { new.amountWon(children: $0) } == [0, 20_830, 45_830, 79_160, 112_490])
    }

    // MARK: Ratio and 소액부징수 (Example 2)

    @Test("Example 2 at 100%: 74,350 / 7,430")
    func example2Ratio100() throws {
        let r = try IncomeTax.simplified(monthlyPayWon: 3_000_000, family: 1, children8to20: 0, ratio: 100, payDate: d("2026-10-25"))
        #expect(r == WithholdingResult(incomeTax: 74_350, localIncomeTax: 7_430, tableCell: 74_350, childDeduction: 0))
    }

    @Test("Example 2 at 80% and 120%: 59,480 / 5,940 and 89,220 / 8,920",
          arguments: [(80, Int64(59_480), Int64(5_940)), (120, 89_220, 8_920)])
    func example2Ratios(_ c: (ratio: Int, tax: Int64, local: Int64)) throws {
        let r = try IncomeTax.simplified(monthlyPayWon: 3_000_000, family: 1, children8to20: 0, ratio: c.ratio, payDate: d("2026-10-25"))
        #expect(r == WithholdingResult(incomeTax: c.tax, localIncomeTax: c.local, tableCell: 74_350, childDeduction: 0))
    }

    @Test("소액부징수 applies after the ratio: 1,040 × 80% = 832 → 0")
    func smallAmountAfterRatio() throws {
        let r = try IncomeTax.simplified(monthlyPayWon: 1_060_000, family: 1, children8to20: 0, ratio: 80, payDate: d("2026-10-25"))
        #expect(r == WithholdingResult(incomeTax: 0, localIncomeTax: 0, tableCell: 1_040, childDeduction: 0))
        let full = try IncomeTax.simplified(monthlyPayWon: 1_060_000, family: 1, children8to20: 0, ratio: 100, payDate: d("2026-10-25"))
        #expect(full.incomeTax == 1_040 && full.localIncomeTax == 100)
    }

    @Test("child deduction then 소액부징수: 14,750 − 12,500 = 2,250 stays; 4,420 − 12,500 → 0")
    func childDeductionThenSmallAmount() throws {
        let r = try IncomeTax.simplified(monthlyPayWon: 2_000_000, family: 2, children8to20: 1, ratio: 100, payDate: d("2025-05-10"))
        #expect(r == WithholdingResult(incomeTax: 2_250, localIncomeTax: 220, tableCell: 14_750, childDeduction: 12_500))
        let low = try IncomeTax.simplified(monthlyPayWon: 1_500_000, family: 2, children8to20: 1, ratio: 100, payDate: d("2025-05-10"))
        #expect(low == WithholdingResult(incomeTax: 0, localIncomeTax: 0, tableCell: 4_420, childDeduction: 12_500))
    }

    // MARK: 3.3% and daily (Example 6)

    @Test("Example 6: 3.3% freelancer paid 500,000 → 15,000 / 1,500")
    func business33() throws {
        #expect(try IncomeTax.business33(payWon: 500_000, payDate: d("2026-11-25")) == TaxWithheld(incomeTaxWon: 15_000, localIncomeTaxWon: 1_500))
    }

    @Test("Example 6: 3.3% of 22,421 → 670 / 60 (no 소액부징수 since 2024-07)")
    func business33Small() throws {
        #expect(try IncomeTax.business33(payWon: 22_421, payDate: d("2026-11-25")) == TaxWithheld(incomeTaxWon: 670, localIncomeTaxWon: 60))
        #expect(try IncomeTax.business33(payWon: 22_421, payDate: d("2024-07-01")) == TaxWithheld(incomeTaxWon: 670, localIncomeTaxWon: 60))
    }

    @Test("3.3% paid before 2024-07-01 still had 소액부징수: 22,421 → 0")
    func business33BeforeJuly2024() throws {
        #expect(try IncomeTax.business33(payWon: 22_421, payDate: d("2024-06-30")) == TaxWithheld(incomeTaxWon: 0, localIncomeTaxWon: 0))
    }

    static func days(_ pay: Int64, count: Int) -> [DatedAmount] {
        (0..<count).map { DatedAmount(date: d("2026-11-02").adding(days: $0), amount: Rational(pay)) }
    }

    @Test("Example 6: 일용 200,000 × 5 days paid at once → 6,750 / 670")
    func dailyFiveDays() throws {
        #expect(try IncomeTax.daily(payByDate: Self.days(200_000, count: 5), payDate: d("2026-11-10"))
                == TaxWithheld(incomeTaxWon: 6_750, localIncomeTaxWon: 670))
    }

    @Test("Example 6: 일용 single 180,000 day paid alone → 810 → 0 (소액부징수 per payment)")
    func dailySingleSmallDay() throws {
        #expect(try IncomeTax.daily(payByDate: Self.days(180_000, count: 1), payDate: d("2026-11-10"))
                == TaxWithheld(incomeTaxWon: 0, localIncomeTaxWon: 0))
    }

    @Test("Example 6: five 180,000 days in one payment → 4,050 / 400")
    func dailyFiveSmallDays() throws {
        #expect(try IncomeTax.daily(payByDate: Self.days(180_000, count: 5), payDate: d("2026-11-10"))
                == TaxWithheld(incomeTaxWon: 4_050, localIncomeTaxWon: 400))
    }

    @Test("일용: days at or under 150,000 add nothing; two entries of one date are one day; exact fractions are summed before flooring")
    func dailyPerDateAndExactSum() throws {
        let entries = [
            DatedAmount(date: d("2026-11-02"), amount: Rational(100_000)),
            DatedAmount(date: d("2026-11-02"), amount: Rational(100_000)),   // one day of 200,000 → 1,350
            DatedAmount(date: d("2026-11-03"), amount: Rational(150_000)),   // nothing
            DatedAmount(date: d("2026-11-04"), amount: Rational(450_001, 2)), // 75,000.5 × 2.7% = 2,025.0135
        ]
        #expect(try IncomeTax.daily(payByDate: entries, payDate: d("2026-11-10"))
                == TaxWithheld(incomeTaxWon: 3_370, localIncomeTaxWon: 330))
    }

    // MARK: Bad inputs

    @Test("family 0 is invalid_value on family")
    func familyZero() {
        #expect(throws: PayrollError(.invalidValue, "family must be 1 … 99 (it counts the employee)", field: "family")) {
            try IncomeTax.simplified(monthlyPayWon: 3_000_000, family: 0, children8to20: 0, ratio: 100, payDate: d("2026-11-25"))
        }
    }

    @Test("ratio 90 is invalid_value on ratio")
    func ratio90() {
        #expect(throws: PayrollError(.invalidValue, "ratio must be 80, 100 or 120", field: "ratio")) {
            try IncomeTax.simplified(monthlyPayWon: 3_000_000, family: 1, children8to20: 0, ratio: 90, payDate: d("2026-11-25"))
        }
    }

    @Test("more children than family − 1 is invalid_value on children8to20")
    func tooManyChildren() {
        do {
            _ = try IncomeTax.simplified(monthlyPayWon: 3_000_000, family: 2, children8to20: 2, ratio: 100, payDate: d("2026-11-25"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue && error.field == "children8to20")
        }
    }

    @Test("negative monthly pay is invalid_value on monthlyPay")
    func negativePay() {
        do {
            _ = try IncomeTax.simplified(monthlyPayWon: -1, family: 1, children8to20: 0, ratio: 100, payDate: d("2026-11-25"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue && error.field == "monthlyPay")
        }
    }

    @Test("a negative day's pay for 일용 is invalid_value on payByDate")
    func dailyNegativePay() {
        do {
            _ = try IncomeTax.daily(payByDate: [DatedAmount(date: d("2026-11-02"), amount: Rational(-1))], payDate: d("2026-11-10"))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue && error.field == "payByDate")
        }
    }

    @Test("payment before 2024-03-01 is unsupported on payDate, for every regime")
    func paymentBeforeTables() {
        func check(_ body: () throws(PayrollError) -> Void) {
            do { try body(); Issue.record("expected an error") } catch {
                #expect(error.code == .unsupported && error.field == "payDate")
            }
        }
        check { () throws(PayrollError) in _ = try IncomeTax.simplified(monthlyPayWon: 3_000_000, family: 1, children8to20: 0, ratio: 100, payDate: d("2024-02-29")) }
        check { () throws(PayrollError) in _ = try IncomeTax.business33(payWon: 500_000, payDate: d("2024-02-29")) }
        check { () throws(PayrollError) in _ = try IncomeTax.daily(payByDate: Self.days(200_000, count: 1), payDate: d("2024-02-29")) }
        #expect((try? IncomeTax.simplified(monthlyPayWon: 3_000_000, family: 1, children8to20: 0, ratio: 100, payDate: d("2024-03-01"))) != nil)
    }
}
