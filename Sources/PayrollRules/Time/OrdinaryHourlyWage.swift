/// The hourly 통상임금 every time line is priced at (calc-api pinned rule 9), and the monthly
/// salary's proration.
public enum OrdinaryHourlyWage {
    /// `hourly`: the wage. `daily`: wage × 60 / (weekly 소정 / number of scheduled days).
    /// `monthly`: wage / D, D = `monthlyHoursDivisor`.
    /// Inlined: called with `input.contract`, it reads the fields in place; as a call it was
    /// passed a copy of the contract (a retain and release of its schedule array, which the
    /// batch path shares between employees on both cores).
    @inline(__always)
    public static func rate(_ contract: Contract, rules: WorkingTimeRules) throws(PayrollError) -> Rational {
        let weekly = contract.weeklyScheduledMinutes
        switch contract.wageType {
        case .hourly:
            return Rational(contract.wageWon)
        case .daily:
            let scheduledDays = Int64(contract.scheduleMinutes.reduce(0) { $0 + ($1 > 0 ? 1 : 0) })
            guard weekly > 0, scheduledDays > 0 else {
                throw PayrollError(.invalidValue, "a daily wage needs a schedule with scheduled minutes", field: "contract.schedule")
            }
            guard let r = ExactMath.rational(Int128(contract.wageWon) * 60 * Int128(scheduledDays), Int128(weekly)) else {
                throw PayrollError(.invalidValue, "daily wage out of range", field: "contract.wage")
            }
            return r
        case .monthly:
            let d = monthlyHoursDivisor(weeklyScheduledMinutes: weekly, rules: rules)
            guard d > 0 else {
                throw PayrollError(.invalidValue, "a monthly wage needs a weekly schedule giving at least one paid hour a month",
                                   field: "contract.schedule")
            }
            return Rational(contract.wageWon, d)
        }
    }

    /// D = round-half-up((weekly 소정 h + 주휴 h) × 365 / 84) (최저임금법 시행령 §5; 209 for 40 h),
    /// with 주휴 h = min(weekly 소정 h, 40) / 5 when weekly 소정 ≥ 15 h, else 0.
    public static func monthlyHoursDivisor(weeklyScheduledMinutes weekly: Int64, rules: WorkingTimeRules) -> Int64 {
        let weeklyAllowanceMinutesTimesDivisor = weekly >= rules.weeklyAllowanceThresholdMinutes
            ? min(weekly, rules.weeklyAllowanceCapMinutes) : 0
        // (weekly + cap/5) minutes × 365 / (84 × 60), all over 5 to stay in integers.
        let numerator = Int128(weekly * rules.weeklyAllowanceDivisor + weeklyAllowanceMinutesTimesDivisor) * 365
        let denominator = Int128(84 * 60 * rules.weeklyAllowanceDivisor)
        return Int64((2 * numerator + denominator) / (2 * denominator))
    }

    /// Σ over the months the period touches of (days of the period in that month on which the
    /// employee is employed) / (days of that month), with one "d/n" term per month for `method`.
    static func monthlyProration(periodStart: LocalDate, periodEnd: LocalDate,
                                 employee: Employee) -> (fraction: Rational, terms: [(days: Int64, ofDays: Int64)]) {
        let lo = max(periodStart, employee.hiredOn ?? periodStart)
        let hi = min(periodEnd, employee.leftOn ?? periodEnd)
        var terms: [(days: Int64, ofDays: Int64)] = []
        var fraction = Rational.zero
        var monthStart = periodStart.firstOfMonth
        while monthStart <= periodEnd {
            let c = monthStart.components
            let monthDays = Int64(LocalDate.daysInMonth(year: c.year, month: c.month))
            let monthEnd = monthStart.adding(days: Int(monthDays) - 1)
            let a = max(lo, monthStart), b = min(hi, monthEnd)
            let employedDays = b >= a ? Int64(a.days(to: b) + 1) : 0
            terms.append((employedDays, monthDays))
            fraction = fraction + Rational(employedDays, monthDays)
            monthStart = monthEnd.adding(days: 1)
        }
        return (fraction, terms)
    }
}
