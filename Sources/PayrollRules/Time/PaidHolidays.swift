/// Paid holidays without work (`paid_holiday`; calc-api pinned rule 8; 근로기준법 §55②,
/// 시행령 §30②; 노동절 under its own statute).
///
/// Hourly and daily wages only (a monthly salary already contains them). A date of the period is
/// paid when it is a paid holiday at this size — 5인 이상: every date of the workplace calendar;
/// every size: May 1 (노동절/근로자의 날 rests on its own statute, so it is paid even when a
/// workplace calendar omits it) — falls on a scheduled weekday other than the `weeklyHoliday`
/// (a 공휴일 on the 주휴일 is paid once, as 주휴), the employee is employed on it, and weekly 소정 is
/// ≥ 15 h (§18③ excludes all of §55 below that). Worth that weekday's scheduled minutes.
/// `holidayAllowance` governs only the premium for working on it, not this pay.
enum PaidHolidays {
    static func compute(_ input: PayrollInput, rules: WorkingTimeRules, calendar: HolidayCalendar,
                        periodStartDay: Int64, periodEndDay: Int64) -> [(day: Int64, minutes: Int64)] {
        let contract = input.contract
        guard contract.wageType != .monthly,
              contract.weeklyScheduledMinutes >= rules.weeklyAllowanceThresholdMinutes else { return [] }
        let fiveOrMore = input.workplace.fiveOrMore
        // May 1 of each year the period touches (a period spans at most two years in practice).
        var mayFirstDays: (Int64, Int64, Int64) = (.min, .min, .min)
        let firstYear = DayMath.date(periodStartDay).year, lastYear = DayMath.date(periodEndDay).year
        for (i, year) in (firstYear...min(lastYear, firstYear + 2)).enumerated() {
            let d = LocalDate(year: year, month: 5, day: 1).map { Int64($0.daysSinceEpoch) } ?? .min
            switch i { case 0: mayFirstDays.0 = d; case 1: mayFirstDays.1 = d; default: mayFirstDays.2 = d }
        }
        var result: [(day: Int64, minutes: Int64)] = []
        var d = periodStartDay
        var weekday = DayMath.weekdayIndex(d)  // of `d`, advanced with it (no division per day)
        while d <= periodEndDay {
            defer {
                d += 1
                weekday = weekday == 6 ? 0 : weekday + 1
            }
            let scheduled = Int64(contract.scheduleMinutes[weekday])
            guard scheduled > 0, weekday != contract.weeklyHoliday.rawValue else { continue }
            let paid = (fiveOrMore && calendar.isHoliday(Int32(d)))
                || d == mayFirstDays.0 || d == mayFirstDays.1 || d == mayFirstDays.2
            guard paid, input.employee.isEmployed(on: DayMath.date(d)) else { continue }
            result.append((d, scheduled))
        }
        return result
    }
}
