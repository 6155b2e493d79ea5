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
                        periodStartDay: Int64, periodEndDay: Int64) -> DayList {
        // The contract's fields are read in place (a copy of it retained its schedule array).
        guard input.contract.wageType != .monthly,
              input.contract.weeklyScheduledMinutes >= rules.weeklyAllowanceThresholdMinutes else { return DayList() }
        // May 1 of each year the period touches (a period spans at most two years in practice).
        var mayFirstDays: (Int64, Int64, Int64) = (.max, .max, .max)
        // The last year without taking the end date apart when it is in the first year (a month).
        let firstYear = DayMath.civil(periodStartDay).year
        let lastYear = periodEndDay < DayMath.dayNumber(year: firstYear + 1, month: 1, day: 1)
            ? firstYear : DayMath.civil(periodEndDay).year
        for (i, year) in (firstYear...min(lastYear, firstYear + 2)).enumerated() {
            // May 1 exists in every year (`LocalDate(year:month:day:)` was never nil for it).
            let d = DayMath.dayNumber(year: year, month: 5, day: 1)
            switch i { case 0: mayFirstDays.0 = d; case 1: mayFirstDays.1 = d; default: mayFirstDays.2 = d }
        }
        // The dates that may be paid, ascending, each once: the workplace calendar's dates in the
        // period (at 5인 이상) merged with the May 1 dates. The calendar's entries are sorted by
        // date and `isHoliday(d)` holds exactly for the dates of its entries, so walking them
        // finds the same dates as testing every day of the period (a month's 30 lookups), in the
        // same order.
        return calendar.entries.withUnsafeBufferPointer { entries in
        var k = entries.count
        if input.workplace.fiveOrMore {
            var lo = 0, hi = entries.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if Int64(entries[mid].date.daysSinceEpoch) < periodStartDay { lo = mid + 1 } else { hi = mid }
            }
            k = lo
        }
        // Ascending (a year the calendar cannot hold gives `.max`, whatever its place).
        var mays = mayFirstDays
        if mays.0 > mays.1 { swap(&mays.0, &mays.1) }
        if mays.1 > mays.2 { swap(&mays.1, &mays.2) }
        if mays.0 > mays.1 { swap(&mays.0, &mays.1) }
        var result = DayList()
        var previous = Int64.min
        while true {
            let holiday = k < entries.count ? Int64(entries[k].date.daysSinceEpoch) : Int64.max
            let mayFirst = mays.0
            let d = min(holiday, mayFirst)
            guard d <= periodEndDay else { break }
            if holiday == d { k += 1 }
            if mayFirst == d { mays = (mays.1, mays.2, .max) }
            // Before the period (a May 1 of the first year, which begins before it) or seen already.
            guard d >= periodStartDay, d != previous else { continue }
            previous = d
            let weekday = DayMath.weekdayIndex(d)
            let scheduled = Int64(input.contract.scheduleMinutes[weekday])
            guard scheduled > 0, weekday != input.contract.weeklyHoliday.rawValue,
                  input.employee.isEmployed(on: DayMath.date(d)) else { continue }
            result.append(day: d, minutes: scheduled)
        }
        return result
        }
    }
}
