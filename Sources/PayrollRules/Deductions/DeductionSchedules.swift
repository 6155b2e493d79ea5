/// The parameter tables resolved once per interval in which none of them changes, so the batch
/// path does one short scan per employee instead of a lookup per parameter (and never re-derives
/// a rate's printed text). The tables in `Parameters/` stay the single source of every number;
/// these are caches of them, built lazily on first use.
///
/// Only held by `static let`s: each schedule is retained once when its table is built and never
/// released (it lives as long as the process), so the batch path can use it without retaining it
/// (`resolveUnretained` + `Unmanaged._withUnsafeGuaranteedRef`). One schedule object serves every
/// employee on every core; a retain and release per employee would be atomic writes to the same
/// cache line from both cores (benchmarks/RESULTS.md, "compute-share").
struct DatedSchedule<Schedule: AnyObject & Sendable>: Sendable {
    struct Interval: Sendable {
        let fromDay: Int32
        /// Int32.max when open-ended.
        let toDayExclusive: Int32
        /// Retained once here, never released.
        let schedule: Unmanaged<Schedule>
    }

    let intervals: [Interval]

    /// Splits time at every `breakpoint`; each interval gets `make(its first day)`, and intervals
    /// where `make` returns nil (some table does not cover them) are left out.
    init(breakpoints: [LocalDate], make: (LocalDate) -> Schedule?) {
        let days = Set(breakpoints.map(\.daysSinceEpoch)).sorted()
        var intervals: [Interval] = []
        for (i, from) in days.enumerated() {
            let to = i + 1 < days.count ? days[i + 1] : Int32.max
            if let schedule = make(LocalDate(daysSinceEpoch: from)) {
                intervals.append(Interval(fromDay: from, toDayExclusive: to, schedule: .passRetained(schedule)))
            }
        }
        self.intervals = intervals
    }

    /// The schedule in force on `date`, not retained (it is never released, see above).
    @inline(__always) func schedule(on date: LocalDate) -> Unmanaged<Schedule>? {
        let day = date.daysSinceEpoch
        for interval in intervals where day >= interval.fromDay && day < interval.toDayExclusive {
            return interval.schedule
        }
        return nil
    }
}

/// Every breakpoint of a set of tables (the `from` and `toExclusive` of each version).
func breakpoints<V>(_ table: ParameterTable<V>) -> [LocalDate] {
    table.versions.flatMap { [$0.from] + ($0.toExclusive.map { [$0] } ?? []) }
}

/// The 4대보험 parameters of one premium-month interval, with their printed rates.
final class InsuranceSchedule: Sendable {
    let pensionRate: Rational
    let pensionRateText: String
    let pensionRatePrinted: PrintedText
    let pensionBand: WonBand
    let healthRate: Rational
    let healthRateText: String
    let healthRatePrinted: PrintedText
    let healthLimits: WonBand
    let longTermCareRatio: Rational
    /// `0.1314` or `0.9448% ÷ 7.19%`.
    let longTermCareRatioText: String
    let longTermCareRatioPrinted: PrintedText
    let employmentRate: Rational
    let employmentRateText: String
    let employmentRatePrinted: PrintedText

    init?(premiumMonth m: LocalDate) {
        typealias P = InsuranceParameters
        guard P.coveredPremiumMonths.contains(m),
              let pensionRate = P.nationalPensionRate.value(on: m), let band = P.nationalPensionBand.value(on: m),
              let healthRate = P.healthRate.value(on: m), let limits = P.healthPremiumLimits.value(on: m),
              let ltc = P.longTermCareRatio.value(on: m), let employmentRate = P.employmentRate.value(on: m)
        else { return nil }
        self.pensionRate = pensionRate
        self.pensionRateText = RateText.percent(pensionRate)
        self.pensionRatePrinted = PrintedText(self.pensionRateText)
        self.pensionBand = band
        self.healthRate = healthRate
        self.healthRateText = RateText.percent(healthRate)
        self.healthRatePrinted = PrintedText(self.healthRateText)
        self.healthLimits = limits
        self.longTermCareRatio = ltc.ratio
        switch ltc {
        case let .ratesQuotient(ltcRate, healthTotalRate):
            self.longTermCareRatioText = RateText.percent(ltcRate) + " ÷ " + RateText.percent(healthTotalRate)
        case let .rounded(r):
            self.longTermCareRatioText = RateText.decimal(r)
        }
        self.longTermCareRatioPrinted = PrintedText(self.longTermCareRatioText)
        self.employmentRate = employmentRate
        self.employmentRateText = RateText.percent(employmentRate)
        self.employmentRatePrinted = PrintedText(self.employmentRateText)
    }

    deinit {
        for printed in [pensionRatePrinted, healthRatePrinted, longTermCareRatioPrinted, employmentRatePrinted] { printed.free() }
    }

    static let byPremiumMonth: DatedSchedule<InsuranceSchedule> = {
        typealias P = InsuranceParameters
        let points = breakpoints(P.nationalPensionRate) + breakpoints(P.nationalPensionBand) + breakpoints(P.healthRate)
            + breakpoints(P.healthPremiumLimits) + breakpoints(P.longTermCareRatio) + breakpoints(P.employmentRate)
            + [P.coveredPremiumMonths.lowerBound, P.coveredPremiumMonths.upperBound]
        return DatedSchedule(breakpoints: points, make: InsuranceSchedule.init(premiumMonth:))
    }()

    /// The schedule of `premiumMonth`, or `unsupported` naming `periodEnd` (calc-api).
    static func resolve(_ premiumMonth: LocalDate) throws(PayrollError) -> InsuranceSchedule {
        try resolveUnretained(premiumMonth).takeUnretainedValue()
    }

    /// `resolve` without a retain, for the per-employee path: use it through
    /// `_withUnsafeGuaranteedRef` (the schedule is never released).
    static func resolveUnretained(_ premiumMonth: LocalDate) throws(PayrollError) -> Unmanaged<InsuranceSchedule> {
        guard let schedule = byPremiumMonth.schedule(on: premiumMonth) else {
            throw PayrollError(.unsupported, "premium month " + String(premiumMonth.description.prefix(7))
                               + " is outside the rule tables (2025-01 … 2026-12)", field: "periodEnd")
        }
        return schedule
    }
}

/// The withholding parameters of one payment-date interval.
final class WithholdingSchedule: Sendable {
    let table: SimplifiedTaxTable
    let children: ChildDeductionAmounts
    let smallAmountThresholdWon: Int64
    let localRate: Rational
    let daily: DailyWorkerWithholding
    let business: BusinessIncomeWithholding
    let dailyRateText: String
    let dailyRatePrinted: PrintedText
    let businessRateText: String
    let businessRatePrinted: PrintedText
    let localRateText: String
    let localRatePrinted: PrintedText

    init?(payDate p: LocalDate) {
        typealias W = WithholdingParameters
        guard p >= W.firstCoveredPaymentDate,
              let table = SimplifiedTaxTable.versions.value(on: p), let children = W.childDeduction.value(on: p),
              let threshold = W.smallAmountThreshold.value(on: p), let localRate = W.localIncomeTaxRate.value(on: p),
              let daily = W.dailyWorker.value(on: p), let business = W.businessIncome.value(on: p)
        else { return nil }
        self.table = table
        self.children = children
        self.smallAmountThresholdWon = threshold
        self.localRate = localRate
        self.daily = daily
        self.business = business
        self.dailyRateText = RateText.percent(daily.rate)
        self.dailyRatePrinted = PrintedText(self.dailyRateText)
        self.businessRateText = RateText.percent(business.rate)
        self.businessRatePrinted = PrintedText(self.businessRateText)
        self.localRateText = RateText.percent(localRate)
        self.localRatePrinted = PrintedText(self.localRateText)
    }

    deinit {
        for printed in [dailyRatePrinted, businessRatePrinted, localRatePrinted] { printed.free() }
    }

    static let byPaymentDate: DatedSchedule<WithholdingSchedule> = {
        typealias W = WithholdingParameters
        let points = breakpoints(W.simplifiedTableBody) + breakpoints(W.childDeduction) + breakpoints(W.smallAmountThreshold)
            + breakpoints(W.localIncomeTaxRate) + breakpoints(W.dailyWorker) + breakpoints(W.businessIncome)
            + [W.firstCoveredPaymentDate]
        return DatedSchedule(breakpoints: points, make: WithholdingSchedule.init(payDate:))
    }()

    /// The schedule of `payDate`, or `unsupported` naming `payDate` (calc-api).
    static func resolve(_ payDate: LocalDate) throws(PayrollError) -> WithholdingSchedule {
        try resolveUnretained(payDate).takeUnretainedValue()
    }

    /// `resolve` without a retain, for the per-employee path: use it through
    /// `_withUnsafeGuaranteedRef` (the schedule is never released).
    static func resolveUnretained(_ payDate: LocalDate) throws(PayrollError) -> Unmanaged<WithholdingSchedule> {
        guard let schedule = byPaymentDate.schedule(on: payDate) else {
            throw PayrollError(.unsupported, "payment date " + payDate.description + " is outside the withholding tables (from "
                               + WithholdingParameters.firstCoveredPaymentDate.description + ")", field: "payDate")
        }
        return schedule
    }
}
