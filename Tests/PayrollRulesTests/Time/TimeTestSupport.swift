@testable import PayrollRules

/// Builders for time-side tests: inputs are written the way the spec writes them.
enum TT {
    static func date(_ s: String) -> LocalDate {
        guard let d = LocalDate(iso: s) else { preconditionFailure("bad test date \(s)") }
        return d
    }

    /// `"2026-11-02T17:30"` in Korea time.
    static func minute(_ s: String) -> KoreaMinute {
        let parts = s.split(separator: "T")
        let hm = parts[1].split(separator: ":")
        return KoreaMinute(date: date(String(parts[0])), minuteOfDay: Int(hm[0])! * 60 + Int(hm[1])!)
    }

    static func shift(_ start: String, _ end: String, breakMinutes: Int32? = nil, breaks: [(String, String)] = []) -> Shift {
        Shift(start: minute(start), end: minute(end), breakMinutes: breakMinutes,
              breaks: breaks.map { BreakWindow(start: minute($0.0), end: minute($0.1)) })
    }

    /// Schedule from weekday keys: `["mon": 360, …]`.
    static func schedule(_ s: [Weekday: Int32]) -> [Int32] {
        Weekday.allCases.map { s[$0] ?? 0 }
    }

    static func weekdays(_ minutes: Int32) -> [Int32] {
        schedule([.mon: minutes, .tue: minutes, .wed: minutes, .thu: minutes, .fri: minutes])
    }

    static func input(
        period: (String, String), fiveOrMore: Bool = true, holidays: [String]? = nil,
        wageType: WageType = .hourly, wage: Int64 = 10_320, schedule: [Int32],
        hiredOn: String? = nil, leftOn: String? = nil,
        weekStart: Weekday = .mon, weeklyHoliday: Weekday = .sun, defaultBreakMinutes: Int32? = nil,
        weeklyAllowance: AllowanceSwitch = .statutory, nightAllowance: AllowanceSwitch = .statutory,
        overtimeAllowance: AllowanceSwitch = .statutory, holidayAllowance: AllowanceSwitch = .statutory,
        shifts: [Shift], absences: [Absence] = []
    ) -> PayrollInput {
        PayrollInput(
            periodStart: date(period.0), periodEnd: date(period.1), payDate: date(period.1).adding(days: 10),
            workplace: Workplace(fiveOrMore: fiveOrMore, holidays: holidays.map { HolidayCalendar(dates: $0.map(date)) }),
            employee: Employee(id: "e-1", hiredOn: hiredOn.map(date), leftOn: leftOn.map(date)),
            contract: Contract(wageType: wageType, wageWon: wage, scheduleMinutes: schedule, weekStart: weekStart,
                               weeklyHoliday: weeklyHoliday, defaultBreakMinutes: defaultBreakMinutes,
                               weeklyAllowance: weeklyAllowance, nightAllowance: nightAllowance,
                               overtimeAllowance: overtimeAllowance, holidayAllowance: holidayAllowance),
            shifts: shifts, absences: absences)
    }

    /// The same daily shift on every given date (`"17:30"`, `"24:00"` allowed as end).
    static func daily(_ dates: [LocalDate], _ from: String, _ to: String, breakMinutes: Int32? = nil) -> [Shift] {
        dates.map { d in
            let start = minute(d.description + "T" + from)
            var end = to == "24:00" ? KoreaMinute(date: d.adding(days: 1), minuteOfDay: 0) : minute(d.description + "T" + to)
            if end <= start { end = end.adding(minutes: 1440) }
            return Shift(start: start, end: end, breakMinutes: breakMinutes)
        }
    }

    /// Dates from `first` to `last` (inclusive) whose weekday is in `on`.
    static func dates(_ first: String, _ last: String, on: Set<Weekday>) -> [LocalDate] {
        var out: [LocalDate] = []
        var d = date(first)
        while d <= date(last) {
            if on.contains(d.weekday) { out.append(d) }
            d = d.adding(days: 1)
        }
        return out
    }

    static let monToFri: Set<Weekday> = [.mon, .tue, .wed, .thu, .fri]
}

extension EarningsResult {
    var gross: Int64 { earnings.reduce(0) { $0 + $1.amount } }
    func lines(_ code: EarningCode) -> [EarningLine] { earnings.filter { $0.code == code } }
    func amount(_ code: EarningCode) -> Int64 { lines(code).reduce(0) { $0 + $1.amount } }
    func pay(on date: String) -> Rational? { payByDate.first { $0.date == TT.date(date) }?.amount }
    func warnings(_ code: WarningCode) -> [PayrollWarning] { warnings.filter { $0.code == code } }
}
