import Testing
@testable import PayrollRules

/// `DeductionCalculator` borrows the cached 4대보험 and withholding schedules without retaining
/// them (`resolveUnretained`). These tests pin that the borrowed schedule is the right one on each
/// side of every breakpoint of the tables: the lines equal those computed with a schedule built
/// afresh from the parameter tables for that very month or date.
@Suite("Deduction schedules resolved by date")
struct DeductionScheduleLookupTests {
    /// Every premium month the tables cover (2025-01 … 2026-12).
    static let premiumMonths: [LocalDate] = (2025...2026).flatMap { y in (1...12).map { m in LocalDate(year: y, month: m, day: 1)! } }

    /// Each withholding breakpoint, the day before it and the day after it (within coverage).
    static var paymentDates: [LocalDate] {
        typealias W = WithholdingParameters
        let points = breakpoints(W.simplifiedTableBody) + breakpoints(W.childDeduction) + breakpoints(W.smallAmountThreshold)
            + breakpoints(W.localIncomeTaxRate) + breakpoints(W.dailyWorker) + breakpoints(W.businessIncome)
            + [W.firstCoveredPaymentDate]
        let days = Set(points.flatMap { [$0.adding(days: -1), $0, $0.adding(days: 1)] })
        return days.filter { $0 >= W.firstCoveredPaymentDate }.sorted()
    }

    static let inputs: [(tax: TaxMode, taxable: Int64, family: Int, children: Int, ratio: Int)] = [
        (.simplified, 2_345_670, 3, 1, 100), (.simplified, 9_870_000, 1, 0, 120), (.simplified, 1_100_000, 2, 1, 80),
        (.business33, 1_234_560, 1, 0, 100), (.daily, 612_000, 1, 0, 100), (.none, 48_000_000, 1, 0, 100),
    ]

    @Test("lines with the borrowed schedules equal lines with schedules built for the month and date")
    func borrowedEqualsFresh() throws {
        var compared = 0
        for month in Self.premiumMonths {
            let insurance = try #require(InsuranceSchedule(premiumMonth: month))
            for payDate in Self.paymentDates {
                let withholding = try #require(WithholdingSchedule(payDate: payDate))
                for x in Self.inputs {
                    let payByDate = x.tax == .daily
                        ? [DatedAmount(date: payDate, amount: Rational(x.taxable / 3)), DatedAmount(date: payDate.adding(days: 1), amount: Rational(x.taxable - x.taxable / 3))]
                        : []
                    let input = DeductionInput(premiumMonth: month, payDate: payDate, taxableWon: x.taxable,
                                               insurance: InsuranceFlags(), insuranceBase: InsuranceBases(), tax: x.tax,
                                               family: x.family, children8to20: x.children, withholdingRatio: x.ratio,
                                               payByDate: payByDate)
                    let resolved = try DeductionCalculator.compute(input)
                    #expect(resolved.lines == DeductionCalculator.computeLines(input, insurance, withholding),
                            "premium month \(month), pay date \(payDate), \(x.tax)")
                    compared += 1
                }
            }
        }
        // At least two breakpoints after the first covered date, each with its day before and after.
        #expect(Self.paymentDates.count >= 7)
        #expect(compared == Self.premiumMonths.count * Self.paymentDates.count * Self.inputs.count)
    }

    @Test("the schedules differ across the tables' breakpoints (so a wrong pick would show)")
    func schedulesDifferAcrossBreakpoints() throws {
        let input = { (month: LocalDate, payDate: LocalDate) in
            DeductionInput(premiumMonth: month, payDate: payDate, taxableWon: 3_456_780, insurance: InsuranceFlags(),
                           insuranceBase: InsuranceBases(), tax: .simplified, family: 2, children8to20: 1,
                           withholdingRatio: 100, payByDate: [])
        }
        let payDate = try #require(Self.paymentDates.last)
        let byMonth = try Self.premiumMonths.map { try DeductionCalculator.compute(input($0, payDate)).lines }
        #expect(Set(byMonth.map { $0.map(\.amount) }).count > 1)
        let month = try #require(Self.premiumMonths.last)
        let byDate = try Self.paymentDates.map { try DeductionCalculator.compute(input(month, $0)).lines.map(\.method) }
        #expect(Set(byDate).count > 1)
    }

    @Test("resolve and resolveUnretained give the one cached schedule; dates outside the tables are unsupported")
    func sameCachedObject() throws {
        for month in Self.premiumMonths {
            #expect(try InsuranceSchedule.resolve(month) === InsuranceSchedule.resolveUnretained(month).takeUnretainedValue())
        }
        for date in Self.paymentDates {
            #expect(try WithholdingSchedule.resolve(date) === WithholdingSchedule.resolveUnretained(date).takeUnretainedValue())
        }
        #expect(throws: PayrollError.self) { try InsuranceSchedule.resolveUnretained(LocalDate(year: 2027, month: 1, day: 1)!) }
        #expect(throws: PayrollError.self) {
            try WithholdingSchedule.resolveUnretained(WithholdingParameters.firstCoveredPaymentDate.adding(days: -1))
        }
    }
}
