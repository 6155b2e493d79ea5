/// 주휴수당 (근로기준법 §55①, 시행령 §30①, §18③; calc-api pinned rule 7).
///
/// For each week (7 days from `weekStart`) whose 주휴일 lies in the period:
/// - `statutory`: paid when (1) the 4-week average of weekly 소정 is ≥ 15 h — averaged over those
///   of the 4 weeks ending with this one in which the employee was employed throughout (§18③
///   "4주 미만으로 근로하는 경우에는 그 기간"); (2) the employee is employed on every day of the
///   week; (3) every scheduled day other than the 주휴일 has a shift starting on
///   it, is a date of the workplace calendar, or has a `leave`/`sick_unpaid` absence;
/// - `always`: paid when the employee is employed on the 주휴일, with no other test;
/// - `never`: not paid (the caller warns when a statutory week was omitted).
/// Worth min(weekly 소정, 40 h) / 5 per week, paid in the period holding the 주휴일. Never paid
/// to monthly contracts (the 209 h salary already contains it).
enum WeeklyAllowance {
    struct Result {
        /// 주휴일 day numbers of the paid weeks, ascending (as `day`; `minutes` is 0).
        var paidDays = DayList()
        /// Fifths of a minute paid per week: min(weekly 소정, cap) (the 주휴 minutes are that / 5).
        var fifthsPerWeek: Int64 = 0
        /// Weeks the law required but `never` left unpaid.
        var omittedStatutoryWeeks = 0
    }

    /// `startWeekdays` is `WorkClassifier`'s record of the weekdays `input.shifts` start on, week
    /// by week (`ClassifiedWork.startWeekdays`).
    static func compute(_ input: PayrollInput, rules: WorkingTimeRules, calendar: HolidayCalendar,
                        periodStartDay: Int64, periodEndDay: Int64, startWeekdays: StartWeekdays) -> Result {
        // The contract and employee are read in place (a copy of the contract retained its
        // schedule array, shared between employees; see `WeekSchedule`).
        var result = Result()
        guard input.contract.wageType != .monthly else { return result }
        let weekly = input.contract.weeklyScheduledMinutes
        result.fifthsPerWeek = min(weekly, rules.weeklyAllowanceCapMinutes)
        guard result.fifthsPerWeek > 0 else { return result }
        let holidayIndex = input.contract.weeklyHoliday.rawValue
        let firstOffset = Int64((holidayIndex - DayMath.weekdayIndex(periodStartDay) + 7) % 7)
        var holiday = periodStartDay + firstOffset
        var weekCursor = 0  // see `isEligible`: the weeks come in order, so one cursor serves them all
        let required = requiredWeekdays(input)
        while holiday <= periodEndDay {
            defer { holiday += 7 }
            switch input.contract.weeklyAllowance {
            case .always:
                if input.employee.isEmployed(on: DayMath.date(holiday)) { result.paidDays.append(day: holiday, minutes: 0) }
            case .statutory:
                if isEligible(input, rules: rules, calendar: calendar, holidayDay: holiday, weeklyScheduledMinutes: weekly,
                              requiredWeekdays: required, startWeekdays: startWeekdays, weekCursor: &weekCursor) {
                    result.paidDays.append(day: holiday, minutes: 0)
                }
            case .never:
                if isEligible(input, rules: rules, calendar: calendar, holidayDay: holiday, weeklyScheduledMinutes: weekly,
                              requiredWeekdays: required, startWeekdays: startWeekdays, weekCursor: &weekCursor) {
                    result.omittedStatutoryWeeks += 1
                }
            }
        }
        return result
    }

    /// The weekdays 개근 is tested on (bit = `Weekday.rawValue`): the scheduled ones other than
    /// the 주휴일.
    /// (The input, not its contract, is passed: a contract passed on its own was copied, a retain
    /// and release of its schedule array.)
    @inline(__always)
    static func requiredWeekdays(_ input: PayrollInput) -> UInt8 {
        var mask: UInt8 = 0
        for weekday in 0..<7 where weekday != input.contract.weeklyHoliday.rawValue && input.contract.scheduleMinutes[weekday] > 0 {
            mask |= 1 << UInt8(weekday)
        }
        return mask
    }

    /// The statutory test for the week holding the 주휴일 `holidayDay`. `weekCursor` is an index of
    /// `startWeekdays` at or before this week's entry; it is moved there, so a caller testing its
    /// weeks in ascending order passes the same cursor on (0 is always valid).
    static func isEligible(_ input: PayrollInput, rules: WorkingTimeRules, calendar: HolidayCalendar,
                           holidayDay: Int64, weeklyScheduledMinutes weeklyScheduled: Int64, requiredWeekdays: UInt8,
                           startWeekdays: StartWeekdays, weekCursor: inout Int) -> Bool {
        let weekFirst = DayMath.weekStartDay(of: holidayDay, weekStart: input.contract.weekStart.rawValue)
        let weekLast = weekFirst + 6
        // Employed on every day of the week.
        guard input.employee.isEmployed(on: DayMath.date(weekFirst)), input.employee.isEmployed(on: DayMath.date(weekLast)) else {
            return false
        }
        // §18③: the average weekly 소정 of the 4 weeks ending with this one, over the weeks of
        // them the employee was employed throughout ("4주 미만으로 근로하는 경우에는 그 기간").
        // This week always counts (checked above), and the contract's schedule (`weeklyScheduled`,
        // the contract's weekly 소정) is the same every week: over any k ≥ 1 such weeks the total
        // is k × weeklyScheduled, so the average is weeklyScheduled itself, whichever of the 4
        // weeks the employee was employed in. (Was: summed week by week, employment tested per week.)
        guard weeklyScheduled >= rules.weeklyAllowanceThresholdMinutes else { return false }
        // 개근: every scheduled day other than the 주휴일 is attended or excused. The weekdays on
        // which a shift of this week starts, as the classifier recorded them (the weeks are the
        // contract's `weekStart` weeks there too); was: the shifts walked again, a day and a
        // weekday taken apart per shift.
        let attended = startWeekdays.mask(ofWeekStarting: weekFirst, cursor: &weekCursor)
        let missing = requiredWeekdays & ~attended
        if missing == 0 { return true }
        // The scheduled days without a shift, in date order: each must be a calendar date or
        // have a `leave`/`sick_unpaid` absence.
        var weekday = DayMath.weekdayIndex(weekFirst)
        var d = weekFirst
        while d <= weekLast {
            defer {
                d += 1
                weekday = weekday == 6 ? 0 : weekday + 1
            }
            guard missing & (1 << UInt8(truncatingIfNeeded: weekday)) != 0 else { continue }
            if calendar.isHoliday(Int32(d)) { continue }
            let date = DayMath.date(d)
            if input.absences.contains(where: { $0.date == date && $0.kind != .unexcused }) { continue }
            return false
        }
        return true
    }
}
