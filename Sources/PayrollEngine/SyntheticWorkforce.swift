import PayrollRules

/// Deterministic generator of realistic employee-months, for benchmarks, engine tests and seeding.
///
/// Mix (by employee index hash): 55 % hourly part-timers (3–5 days × 4–7 h), 20 % hourly full-time
/// (5 × 8 h), 10 % daily wage, 15 % monthly salary; workplaces alternate 5인 이상 / 미만; shifts
/// cover every scheduled day of the weeks around the period with day, evening and night starts,
/// occasional overtime, a few absences and mid-month hires. The same seed gives the same data.
public struct SyntheticWorkforce: Sendable {
    public let seed: UInt64
    public let periodStart: LocalDate
    public let periodEnd: LocalDate
    public let payDate: LocalDate

    public init(seed: UInt64 = 42, year: Int = 2026, month: Int = 10) {
        self.seed = seed
        let start = LocalDate(year: year, month: month, day: 1)!
        self.periodStart = start
        self.periodEnd = LocalDate(year: year, month: month, day: LocalDate.daysInMonth(year: year, month: month))!
        self.payDate = periodEnd.adding(days: 10)
    }

    /// The employee-month with index `index` (independent of every other index).
    public func employee(_ index: Int) -> PayrollInput {
        var rng = SplitMix64(seed: seed &+ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15)
        let kind = rng.next(upTo: 100)
        let fiveOrMore = rng.next(upTo: 3) != 0

        var schedule = [Int32](repeating: 0, count: 7)
        let wageType: WageType
        let wageWon: Int64
        switch kind {
        case 0..<55:  // hourly part-timer
            let days = 3 + Int(rng.next(upTo: 3))
            let minutes = Int32(240 + 30 * rng.next(upTo: 7))
            let firstDay = Int(rng.next(upTo: UInt64(7 - days)))
            for d in firstDay..<(firstDay + days) { schedule[d] = minutes }
            wageType = .hourly
            wageWon = 10_320 + Int64(rng.next(upTo: 20)) * 100
        case 55..<75:
            for d in 0..<5 { schedule[d] = 480 }
            wageType = .hourly
            wageWon = 10_320 + Int64(rng.next(upTo: 40)) * 100
        case 75..<85:
            for d in 0..<5 { schedule[d] = 480 }
            wageType = .daily
            wageWon = 90_000 + Int64(rng.next(upTo: 50)) * 1_000
        default:
            for d in 0..<5 { schedule[d] = 480 }
            wageType = .monthly
            wageWon = 2_200_000 + Int64(rng.next(upTo: 300)) * 10_000
        }

        // Start-of-shift minute of day: day, evening or night work.
        let startChoices: [Int32] = [540, 540, 600, 780, 1050, 1080, 1320]
        let startMinuteOfDay = startChoices[Int(rng.next(upTo: UInt64(startChoices.count)))]

        // Weeks around the period (Monday before the start … Sunday after the end).
        let firstDay = periodStart.adding(days: -periodStart.weekday.rawValue)
        let lastDay = periodEnd.adding(days: 6 - periodEnd.weekday.rawValue)
        let hiredOn: LocalDate? = rng.next(upTo: 20) == 0 ? periodStart.adding(days: Int(rng.next(upTo: 20))) : nil
        var shifts: [Shift] = []
        shifts.reserveCapacity(32)
        var absences: [Absence] = []
        var date = firstDay
        while date <= lastDay {
            let scheduled = schedule[date.weekday.rawValue]
            if scheduled > 0, hiredOn.map({ date >= $0 }) ?? true {
                let roll = rng.next(upTo: 100)
                if roll < 2 {
                    absences.append(Absence(date: date, kind: roll == 0 ? .unexcused : .leave))
                } else {
                    var worked = Int64(scheduled)
                    if roll >= 90 { worked += 30 * Int64(1 + rng.next(upTo: 6)) }  // overtime / part-time excess
                    let breakMinutes: Int32 = worked >= 480 ? 60 : (worked >= 240 ? 30 : 0)
                    let start = KoreaMinute(date: date, minuteOfDay: Int(startMinuteOfDay))
                    let end = start.adding(minutes: worked + Int64(breakMinutes))
                    shifts.append(Shift(start: start, end: end, breakMinutes: breakMinutes))
                }
            }
            date = date.adding(days: 1)
        }

        let contract = Contract(
            wageType: wageType, wageWon: wageWon, scheduleMinutes: schedule,
            nonTaxable: NonTaxableItems(mealsWon: wageType == .monthly ? 200_000 : 0)
        )
        let employee = Employee(
            id: "e-\(index)", hiredOn: hiredOn,
            family: 1 + Int(rng.next(upTo: 4)), children8to20: 0, withholdingRatio: 100
        )
        return PayrollInput(
            periodStart: periodStart, periodEnd: periodEnd, payDate: payDate,
            workplace: Workplace(fiveOrMore: fiveOrMore), employee: employee, contract: contract,
            shifts: shifts, absences: absences
        )
    }
}

/// SplitMix64: tiny, fast, good enough for synthetic data; deterministic across platforms.
public struct SplitMix64: Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in 0..<bound (bound > 0; modulo bias is irrelevant here).
    public mutating func next(upTo bound: UInt64) -> UInt64 { next() % bound }
}
