import Testing
@testable import PayrollRules

@Suite("Deduction parameter tables: coverage and printing")
struct ParameterTableTests {
    /// Every first-of-month from 2025-01 to 2026-12.
    static let coveredMonths: [LocalDate] = (2025...2026).flatMap { y in (1...12).map { LocalDate(year: y, month: $0, day: 1)! } }

    @Test("every insurance table covers every premium month 2025-01 … 2026-12, with a source")
    func insuranceTablesCoverTheRange() {
        for month in Self.coveredMonths {
            #expect(InsuranceParameters.nationalPensionRate.version(on: month)?.source.isEmpty == false, "\(month)")
            #expect(InsuranceParameters.nationalPensionBand.version(on: month) != nil, "\(month)")
            #expect(InsuranceParameters.healthRate.version(on: month) != nil, "\(month)")
            #expect(InsuranceParameters.healthPremiumLimits.version(on: month) != nil, "\(month)")
            #expect(InsuranceParameters.longTermCareRatio.version(on: month) != nil, "\(month)")
            #expect(InsuranceParameters.employmentRate.version(on: month) != nil, "\(month)")
            #expect(InsuranceParameters.coveredPremiumMonths.contains(month))
        }
        #expect(!InsuranceParameters.coveredPremiumMonths.contains(d("2027-01-01")))
    }

    @Test("장기요양 0.1314 row is marked UNVERIFIED; the exact ratios are 9182/70900 and 9448/71900")
    func longTermCareRows() {
        #expect(InsuranceParameters.longTermCareRatio.version(on: d("2026-11-01"))?.confidence == .unverified)
        #expect(InsuranceParameters.longTermCareRatio.value(on: d("2025-05-01"))?.ratio == Rational(9182, 70900))
        #expect(InsuranceParameters.longTermCareRatio.value(on: d("2026-10-01"))?.ratio == Rational(9448, 71900))
        #expect(InsuranceParameters.longTermCareRatio.value(on: d("2026-11-01"))?.ratio == Rational(1314, 10000))
    }

    @Test("withholding tables cover every payment date from 2024-03-01 and none before")
    func withholdingTablesCoverPayments() {
        for date in [d("2024-03-01"), d("2024-06-30"), d("2024-07-01"), d("2026-02-28"), d("2026-03-01"), d("2027-01-10")] {
            #expect(WithholdingParameters.childDeduction.version(on: date) != nil)
            #expect(WithholdingParameters.simplifiedTableBody.version(on: date) != nil)
            #expect(WithholdingParameters.dailyWorker.version(on: date) != nil)
            #expect(WithholdingParameters.businessIncome.version(on: date) != nil)
            #expect(WithholdingParameters.localIncomeTaxRate.version(on: date) != nil)
            #expect(WithholdingParameters.smallAmountThreshold.version(on: date) != nil)
        }
        #expect(WithholdingParameters.childDeduction.version(on: d("2024-02-29")) == nil)
        #expect(SimplifiedTaxTable.versions.version(on: d("2024-02-29")) == nil)
    }

    @Test("the table generator keeps its frozen parameters: 4.5%, 290,000 … 4,490,000, credit 55% / 30% over 500,000")
    func frozenGenerator() {
        let body = SimplifiedTableBody.frozen2024
        #expect(body.pensionRate == Rational(45, 1000))
        #expect(body.pensionBase == WonBand(lowWon: 290_000, highWon: 4_490_000))
        #expect(body.creditFirstRate == Rational(55, 100) && body.creditFirstLimitWon == 500_000 && body.creditSecondRate == Rational(30, 100))
    }

    @Test("rates print exactly", arguments: [
        (Rational(475, 10000), "4.75%"), (Rational(3595, 100000), "3.595%"), (Rational(9, 1000), "0.9%"),
        (Rational(45, 1000), "4.5%"), (Rational(3, 100), "3%"), (Rational(9448, 1_000_000), "0.9448%"),
    ])
    func percentText(_ c: (rate: Rational, text: String)) {
        #expect(RateText.percent(c.rate) == c.text)
    }

    @Test("decimals print exactly; non-terminating fractions as p/q")
    func decimalText() {
        #expect(RateText.decimal(Rational(1314, 10000)) == "0.1314")
        #expect(RateText.decimal(Rational(1, 3)) == "1/3")
        #expect(RateText.decimal(Rational(7)) == "7")
    }
}
