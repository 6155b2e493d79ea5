@testable import PayrollRules

/// SplitMix64: a tiny seeded generator so property tests are deterministic and reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random but valid `PayrollInput`s: sorted, non-overlapping shifts around a 2025/2026 period
/// (starting up to 12 days before and ending up to 8 days after it, so the surrounding weeks feed
/// the counters), every wage type, size, switch, week start and 주휴일, break style and calendar.
struct InputGenerator {
    enum Breaks { case any, none }
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func int(_ r: ClosedRange<Int>) -> Int { Int.random(in: r, using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...xs.count - 1)] }

    mutating func input(breaks: Breaks = .any, emptyShifts: Bool = false, plainCalendar: Bool = false,
                        fiveOrMore forcedSize: Bool? = nil) -> PayrollInput {
        let year = pick([2025, 2026])
        let month = plainCalendar ? pick([1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12]) : int(1...12)
        let monthFirst = LocalDate(year: year, month: month, day: 1)!
        let monthDays = LocalDate.daysInMonth(year: year, month: month)
        var periodStart = monthFirst, periodEnd = monthFirst.adding(days: monthDays - 1)
        if chance(25) {  // a partial or shifted period, still inside one year
            periodStart = monthFirst.adding(days: int(0...9))
            periodEnd = min(periodStart.adding(days: int(6...30)), LocalDate(year: year, month: 12, day: 31)!)
            if plainCalendar && periodEnd.month == 5 { periodEnd = LocalDate(year: year, month: 4, day: 30)! }
        }

        let wageType: WageType = chance(60) ? .hourly : pick([.daily, .monthly])
        var schedule = [Int32](repeating: 0, count: 7)
        let scheduledDays = int(0...6)
        for _ in 0..<scheduledDays {
            schedule[int(0...6)] = Int32(chance(50) ? pick([120, 180, 240, 300, 360, 420, 480, 540]) : int(30...600))
        }
        if wageType != .hourly && schedule.allSatisfy({ $0 == 0 }) { schedule[0] = 480 }
        let wage: Int64 = switch wageType {
        case .hourly: Int64(int(9_000...15_000))
        case .daily: Int64(int(60_000...150_000))
        case .monthly: Int64(int(1_000_000...4_000_000))
        }
        let switches: [AllowanceSwitch] = [.statutory, .statutory, .always, .never]
        let fiveOrMore = forcedSize ?? chance(50)
        var holidays: HolidayCalendar? = nil
        if plainCalendar {
            holidays = HolidayCalendar(dates: [])
        } else if chance(50) {
            holidays = HolidayCalendar(dates: (0..<int(0...4)).map { _ in periodStart.adding(days: int(-7...35)) })
        }
        let hiredOn: LocalDate? = chance(40) ? periodStart.adding(days: int(-20...15)) : nil
        let leftOn: LocalDate? = chance(20) ? periodEnd.adding(days: -int(0...10)) : nil
        let defaultBreak: Int32? = breaks == .none ? nil : pick([nil, 30, 60])

        var shifts: [Shift] = []
        if !emptyShifts {
            var t = KoreaMinute(date: periodStart.adding(days: -12), minuteOfDay: int(0...1439)).value
            let stop = KoreaMinute(date: periodEnd.adding(days: 8), minuteOfDay: 0).value
            while t < stop {
                let length = Int64(chance(10) ? int(61...1500) : int(61...720))
                let s = t, e = t + length
                var shift = Shift(start: KoreaMinute(s), end: KoreaMinute(e))
                switch breaks {
                case .none:
                    shift.breakMinutes = 0
                case .any:
                    switch int(0...2) {
                    case 0: break  // the contract default
                    case 1: shift.breakMinutes = Int32(int(0...Int(length / 3)))
                    default:
                        let a = s + Int64(int(0...Int(length / 2))), b = a + Int64(int(1...Int(length / 4)))
                        var windows = [BreakWindow(start: KoreaMinute(a), end: KoreaMinute(min(b, e)))]
                        if chance(40) && min(b, e) + 2 < e {
                            let c = min(b, e) + Int64(int(1...Int(e - min(b, e) - 1)))
                            windows.append(BreakWindow(start: KoreaMinute(c), end: KoreaMinute(min(c + Int64(int(1...60)), e))))
                        }
                        shift.breaks = windows
                    }
                }
                shifts.append(shift)
                t = e + Int64(chance(60) ? int(600...1000) : int(0...4000))
            }
        }
        var absences: [Absence] = []
        if !plainCalendar {
            for _ in 0..<int(0...3) {
                absences.append(Absence(date: periodStart.adding(days: int(-7...30)), kind: pick(AbsenceKind.allCases)))
            }
        }
        return PayrollInput(
            periodStart: periodStart, periodEnd: periodEnd, payDate: periodEnd.adding(days: 10),
            workplace: Workplace(fiveOrMore: fiveOrMore, holidays: holidays),
            employee: Employee(id: "gen", hiredOn: hiredOn, leftOn: leftOn),
            contract: Contract(wageType: wageType, wageWon: wage, scheduleMinutes: schedule,
                               weekStart: pick(Weekday.allCases), weeklyHoliday: pick(Weekday.allCases),
                               defaultBreakMinutes: defaultBreak,
                               weeklyAllowance: pick(switches), nightAllowance: pick(switches),
                               overtimeAllowance: pick(switches), holidayAllowance: pick(switches)),
            shifts: shifts, absences: absences)
    }
}
