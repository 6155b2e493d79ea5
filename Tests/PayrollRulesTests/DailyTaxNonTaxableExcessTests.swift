import Testing
@testable import PayrollRules

/// calc-api rule 13 with rule 11: under `tax: daily`, the taxable excess of the non-taxable items
/// over their 200,000원 exemption is taxable pay, attributed whole to the last date with pay
/// (`PayrollCalculator.dailyPayByDate`).
@Suite("daily withholding counts the taxable excess of non-taxable items")
struct DailyTaxNonTaxableExcessTests {
    /// Hourly 10,320원, `tax: daily`, meals `mealsWon`; 09:00–17:00 (480 min, 82,560원) on each day.
    static func payslip(mealsWon: Int64, days: [Int]) throws -> Payslip {
        let contract = #"{"wageType": "hourly", "wage": 10320, "schedule": {"mon": 480, "tue": 480, "wed": 480, "thu": 480, "fri": 480}, "tax": "daily", "nonTaxable": {"meals": \#(mealsWon)}}"#
        let shifts = days.map { day in
            CalcAPIFixture.plainShift("2026-11-0\(day)T09:00", "2026-11-0\(day)T17:00")
        }
        return try PayrollCalculator.calculate(try CalcRequestDecoder.decode(CalcAPIFixture.request(contract: contract, shifts: shifts)))
    }

    static func amount(_ p: Payslip, _ code: DeductionCode) -> Int64? {
        p.deductions.first { $0.code == code }?.amount
    }

    @Test("two days of 82,560원 are under 150,000원 each: no tax without an excess")
    func noExcess() throws {
        let p = try Self.payslip(mealsWon: 200_000, days: [2, 3])
        #expect(p.taxable == 165_120)
        #expect(Self.amount(p, .incomeTax) == 0)
    }

    @Test("meals 400,000원: the 200,000원 excess goes on the last work date (11-03): floor10((282,560 − 150,000) × 2.7 %) = 3,570")
    func excessOnLastWorkDate() throws {
        let p = try Self.payslip(mealsWon: 400_000, days: [2, 3])
        #expect(p.nonTaxable == 200_000)
        #expect(p.taxable == 365_120)
        // Spread over both days it would be floor10(2 × 32,560 × 2.7 %) = 1,750; ignored, 0.
        #expect(Self.amount(p, .incomeTax) == 3_570)
        #expect(Self.amount(p, .localIncomeTax) == 350)
    }

    @Test("no work date: the excess is attributed to periodEnd: floor10((200,000 − 150,000) × 2.7 %) = 1,350")
    func excessWithoutWork() throws {
        let p = try Self.payslip(mealsWon: 400_000, days: [])
        #expect(p.taxable == 200_000)
        #expect(Self.amount(p, .incomeTax) == 1_350)
    }

    @Test("dailyPayByDate appends the excess as one more entry of the last date, and leaves pay without excess untouched")
    func attribution() {
        let pay = [DatedAmount(date: d("2026-11-02"), amount: Rational(82_560)),
                   DatedAmount(date: d("2026-11-03"), amount: Rational(82_560))]
        #expect(PayrollCalculator.dailyPayByDate(pay, taxableExcessWon: 0, periodEnd: d("2026-11-30")) == pay)
        #expect(PayrollCalculator.dailyPayByDate(pay, taxableExcessWon: 5, periodEnd: d("2026-11-30"))
                == pay + [DatedAmount(date: d("2026-11-03"), amount: Rational(5))])
        #expect(PayrollCalculator.dailyPayByDate([], taxableExcessWon: 5, periodEnd: d("2026-11-30"))
                == [DatedAmount(date: d("2026-11-30"), amount: Rational(5))])
    }
}
