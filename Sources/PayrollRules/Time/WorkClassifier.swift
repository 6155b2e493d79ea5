/// Worked minutes of one shift-start day that fall inside the period, by bucket.
struct DayMinutes: Sendable, Hashable {
    var day: Int64
    var regular: Int64 = 0
    var overtime: Int64 = 0
    var partTimeExcess: Int64 = 0
    var holiday: Int64 = 0
    var holidayOver8: Int64 = 0
    var night: Int64 = 0

    var worked: Int64 { regular + overtime + partTimeExcess + holiday + holidayOver8 }
}

/// What the classification of all shifts produces.
struct ClassifiedWork: Sendable {
    /// Minutes inside the period (weeklyAllowance and paidHoliday are filled in later).
    var buckets = MinuteBuckets()
    /// Per shift-start day, ascending (only days with minutes inside the period); filled only
    /// when asked (`Config.collectsStartDays`: pay by date, for 일용 withholding, reads it).
    var byStartDay: [DayMinutes] = []
    /// Worked minutes per calendar date inside the period, ascending; filled only when asked
    /// (the minimum-wage check needs it only when the rate may be below the minimum).
    var byCalendarDay: [(day: Int64, minutes: Int64)] = []
    /// Shift-start days (any, also outside the period), ascending, each once; filled only when
    /// asked (`Config.collectsShiftStartDays`; `WeeklyAllowance` reads `startWeekdays`).
    var shiftStartDays: [Int64] = []
    /// §54 findings for shifts starting inside the period.
    var warnings: [PayrollWarning] = []
    /// The weekdays shifts (any, also outside the period) start on, week by week (weeks of the
    /// contract's `weekStart`); `WeeklyAllowance` reads its 개근 test from it.
    var startWeekdays = StartWeekdays()
}

/// The production classifier (calc-api pinned rules 1–6): SEGMENT arithmetic. Each work interval
/// is cut at midnight, 06:00 and 22:00, so inside a piece the calendar date, the night flag, the
/// holiday flag and "inside the period" are constant; each piece is then split only where a
/// counter crosses a threshold (8 h of the shift-start day, 40 h of its week, the day's 소정 for
/// part-time excess, 8 h of holiday work on the calendar date). No per-minute loop.
///
/// The rules, in the order they are applied to a minute:
/// - a minute on a 휴일 (its own calendar date) is `holiday` up to 8 h of that date, then
///   `holidayOver8`; it feeds neither the daily nor the weekly counter;
/// - otherwise it counts to the daily counter of the shift-start day: beyond 8 h it is `overtime`;
/// - otherwise it counts to the 40 h pool of the week holding the shift-start day: beyond 40 h it
///   is `overtime`;
/// - otherwise, where part-time excess applies, beyond that day's scheduled minutes it is
///   `partTimeExcess`; else `regular`.
/// Night ([22:00, 06:00)) overlays every bucket. Minutes outside the period feed the counters
/// but are not counted.
struct WorkClassifier {
    struct Config {
        var rules: WorkingTimeRules
        var periodStartDay: Int64
        var periodEndDay: Int64
        var weekStart: Int
        var weeklyHoliday: Int
        /// False at 5인 미만 unless `holidayAllowance` is `always` (pinned rule 2).
        var classifiesHolidays: Bool
        var calendar: HolidayCalendar
        /// One entry per weekday, Monday first (inline: no retain of the contract's shared array).
        var scheduleMinutes: WeekSchedule
        /// 기간제법 §6③ applies: a part-time contract at 5인 이상 or with `overtimeAllowance: always`.
        var partTimeExcessApplies: Bool
        var defaultBreakMinutes: Int32?
        var collectsCalendarDays: Bool
        /// Whether `ClassifiedWork.byStartDay` is filled (the buckets are summed either way).
        var collectsStartDays: Bool
        /// Whether `ClassifiedWork.shiftStartDays` is filled.
        var collectsShiftStartDays: Bool
        /// The shifts passed `PayrollInput.validated()` unchanged (what `PayrollCalculator`
        /// computes): sorted, apart, each at most 24 h inside the dates around the period, breaks
        /// inside their shift in order and shorter than it. `classify` then skips its own checks
        /// of the same things (which can only pass) and reads the break minutes without them.
        var shiftsAreValidated = false

        /// The configuration `EarningsCalculator` uses for `input` (pinned rules 2 and 6).
        init(_ input: PayrollInput, rules: WorkingTimeRules, calendar: HolidayCalendar, collectsCalendarDays: Bool,
             collectsStartDays: Bool = true, collectsShiftStartDays: Bool = true) {
            // Fields read from `input` in place (a copy of the contract retained its schedule array).
            let fiveOrMore = input.workplace.fiveOrMore
            self.rules = rules
            self.periodStartDay = Int64(input.periodStart.daysSinceEpoch)
            self.periodEndDay = Int64(input.periodEnd.daysSinceEpoch)
            self.weekStart = input.contract.weekStart.rawValue
            self.weeklyHoliday = input.contract.weeklyHoliday.rawValue
            self.classifiesHolidays = fiveOrMore || input.contract.holidayAllowance == .always
            self.calendar = calendar
            self.scheduleMinutes = WeekSchedule(contractOf: input)
            self.partTimeExcessApplies = input.contract.isPartTime && (fiveOrMore || input.contract.overtimeAllowance == .always)
            self.defaultBreakMinutes = input.contract.defaultBreakMinutes
            self.collectsCalendarDays = collectsCalendarDays
            self.collectsStartDays = collectsStartDays
            self.collectsShiftStartDays = collectsShiftStartDays
        }
    }

    let config: Config
    var out = ClassifiedWork()

    // Counters.
    private var dayKey = Int64.min, dayCount: Int64 = 0, dayScheduled: Int64 = 0
    private var weekKey = Int64.min, weekCount: Int64 = 0
    /// The weekdays (bit = `Weekday.rawValue`) shifts of the week `weekKey` start on so far.
    private var weekStartWeekdays: UInt8 = 0
    private var holidayKey = Int64.min, holidayCount: Int64 = 0
    // Calendar-day cache.
    private var pieceDayKey = Int64.min, pieceDayIsHoliday = false
    // The entries of `out.byStartDay` and `out.byCalendarDay` being summed, appended when their
    // day changes and at the end (`finish()`), so a piece adds to plain fields.
    // `Int64.min` as the day of an empty entry (real days are within `DayMath.dayRange`).
    private var pendingStartDay = DayMinutes(day: .min)
    private var pendingCalendarDay: (day: Int64, minutes: Int64) = (.min, 0)
    private var lastShiftStartDay = Int64.min

    /// `config` is consumed (moved in, not copied: a copy retained the calendar's arrays).
    init(_ config: consuming Config) { self.config = config }

    /// `config` is consumed: the classifier takes it over (read as `c.config` below), so the
    /// calculator's configuration is moved in, not copied.
    static func classify(_ shifts: [Shift], _ config: consuming Config) throws(PayrollError) -> ClassifiedWork {
        var c = WorkClassifier(config)
        if c.config.collectsStartDays { c.out.byStartDay.reserveCapacity(min(shifts.count, 64)) }
        if c.config.collectsShiftStartDays { c.out.shiftStartDays.reserveCapacity(shifts.count) }
        // A shift adds at most two calendar dates (it is at most 24 h long once validated; a
        // longer one only grows the array): one allocation instead of growing from empty.
        if c.config.collectsCalendarDays && !shifts.isEmpty { c.out.byCalendarDay.reserveCapacity(min(2 * shifts.count, 128)) }
        var previousEnd = Int64.min
        // Shifts are read in place: copying each out (`for shift in shifts`) retained and
        // released its break array.
        for i in shifts.indices {
            let s = shifts[i].start.value, e = shifts[i].end.value
            let startDay = DayMath.day(ofMinute: s)
            let breaks: (totalMinutes: Int64, statutoryMinutes: Int64)
            if c.config.shiftsAreValidated {
                // Validated: in range, ordered and apart, breaks valid (the checks below would pass).
                breaks = ShiftBreaks.measure(shifts, index: i, defaultBreakMinutes: c.config.defaultBreakMinutes)
            } else {
                guard DayMath.dayRange.contains(startDay), DayMath.dayRange.contains(DayMath.day(ofMinute: e)) else {
                    throw PayrollError(.invalidValue, "shift time out of range", field: "shifts[\(i)].start")
                }
                guard e > s else { throw PayrollError(.invalidValue, "a shift must end after it starts", field: "shifts[\(i)].end") }
                guard s >= previousEnd else {
                    throw PayrollError(.invalidValue, "shifts must be sorted by start and must not overlap", field: "shifts[\(i)].start")
                }
                previousEnd = e
                breaks = try ShiftBreaks.validate(shifts, index: i, defaultBreakMinutes: c.config.defaultBreakMinutes)
            }
            c.startShift(onDay: startDay)
            let workedMinutes = e - s - breaks.totalMinutes
            if startDay >= c.config.periodStartDay && startDay <= c.config.periodEndDay {
                // §54 (the warning's text is built out of line, only when one is due).
                let required = c.config.rules.requiredBreakMinutes(netWorkMinutes: workedMinutes)
                if breaks.statutoryMinutes < required {
                    c.warnBreakBelowStatutory(netWorkMinutes: workedMinutes, requiredBreakMinutes: required, breaks: breaks)
                }
                if c.addsAsRegular(shifts, i, shiftStart: s, shiftEnd: e, breakMinutes: breaks.totalMinutes,
                                   workedMinutes: workedMinutes) {
                    // Classified whole (the usual shift, by day or by night); same buckets as
                    // piece by piece below.
                    continue
                }
            } else if c.countsOutsidePeriod(shiftEnd: e, workedMinutes: workedMinutes) {
                // Wholly outside the period (the weeks around it): only the counters move.
                continue
            }
            if !shifts[i].breaks.isEmpty {
                var cursor = s
                for b in shifts[i].breaks {
                    c.work(from: cursor, to: b.start.value)
                    cursor = b.end.value
                }
                c.work(from: cursor, to: e)
            } else if breaks.totalMinutes > 0 {
                let w = ShiftBreaks.centredWindow(shiftStart: s, shiftEnd: e, breakMinutes: breaks.totalMinutes)
                c.work(from: s, to: w.start)
                c.work(from: w.end, to: e)
            } else {
                c.work(from: s, to: e)
            }
        }
        c.finish()
        // Moved out (swapped with an empty value): a copy retained its four arrays only for
        // `c` to release them.
        var out = ClassifiedWork()
        swap(&out, &c.out)
        return out
    }

    private mutating func finish() {
        if weekKey != .min { out.startWeekdays.append(weekFirstDay: weekKey, mask: weekStartWeekdays) }
        if pendingStartDay.day != .min { flushStartDay() }
        if pendingCalendarDay.day != .min { out.byCalendarDay.append(pendingCalendarDay) }
        pendingStartDay = DayMinutes(day: .min)
        pendingCalendarDay = (.min, 0)
        out.buckets.worked = out.buckets.regular + out.buckets.overtime + out.buckets.partTimeExcess
            + out.buckets.holiday + out.buckets.holidayOver8
    }

    /// Moves the counters to the shift starting on `day` (the shift-start day of its minutes).
    /// Shifts come in start order, so a day seen before is the current one: its weekday, schedule
    /// and week are looked up once per day, not once per shift.
    @inline(__always)
    private mutating func startShift(onDay day: Int64) {
        guard day != dayKey else { return }
        dayKey = day
        dayCount = 0
        if config.collectsShiftStartDays { out.shiftStartDays.append(day) }
        // One weekday for the day's schedule and its week's start.
        let weekday = DayMath.weekdayIndex(day)
        dayScheduled = Int64(config.scheduleMinutes[weekday])
        let week = DayMath.weekStartDay(of: day, weekday: weekday, weekStart: config.weekStart)
        if week != weekKey {
            // Shifts come in start order, so a week left is done: its start weekdays are final.
            if weekKey != .min { out.startWeekdays.append(weekFirstDay: weekKey, mask: weekStartWeekdays) }
            weekKey = week
            weekCount = 0
            weekStartWeekdays = 0
        }
        weekStartWeekdays |= 1 << UInt8(truncatingIfNeeded: weekday)
        // Whether the day is a 휴일, with the weekday at hand (nearly every shift asks
        // `isHoliday(dayKey)` next): the calendar-day cache set as `isHoliday` would set it.
        if day != pieceDayKey {
            pieceDayKey = day
            pieceDayIsHoliday = config.classifiesHolidays && (weekday == config.weeklyHoliday || config.calendar.isHoliday(Int32(day)))
        }
    }

    /// The §54 warning of the current shift, whose statutory break minutes are below `required`
    /// (unless §54① 단서 waives it). Out of line: most shifts take a long enough break.
    @inline(never)
    private mutating func warnBreakBelowStatutory(netWorkMinutes net: Int64, requiredBreakMinutes required: Int64,
                                                  breaks: (totalMinutes: Int64, statutoryMinutes: Int64)) {
        let date = DayMath.date(dayKey)
        // §54① 단서: the input has no employee-request field, so no request is recorded.
        if BreakWaiver.waives(workDate: date, netWorkMinutes: net, requiredBreakMinutes: required,
                              employeeRequestRecorded: false) { return }
        let given = breaks.statutoryMinutes == breaks.totalMinutes
            ? "\(breaks.totalMinutes)분"
            : "\(breaks.statutoryMinutes)분 (of \(breaks.totalMinutes)분; a break at the start or end does not count)"
        out.warnings.append(PayrollWarning(
            code: .breakBelowStatutory,
            message: "\(date): 근로 \(PayMethodText.hours(net)) requires a break of at least \(required)분 during work (근로기준법 §54①); given \(given)",
            date: date))
    }

    /// Records all `workedMinutes` of the current shift as `regular` at once when classifying
    /// its work intervals piece by piece (`work`) would: every calendar date the shift touches
    /// (its start day and at most the next) is in the period and not a 휴일, and the minutes fit
    /// under the daily and weekly limits and, where part-time excess applies, under the day's
    /// scheduled minutes (so every step of `piece` takes the `regular` branch with all that is
    /// left). Its night minutes are counted by arithmetic (`nightMinutes(sinceDayStart:)` at the ends of
    /// the shift and of its breaks) and its minutes per calendar date split at midnight, so the
    /// counters advance by the same minutes and `record` sums the same amounts into the same
    /// entries, in the same order. False (nothing done) otherwise. `workedMinutes` is the shift
    /// less its breaks (`breakMinutes`), which lie inside it (checked by `ShiftBreaks`).
    /// A day shift past a limit (on one non-휴일 date of the period, no night minute) is also
    /// recorded at once, its minutes counted against the limits by `countWorked`.
    @inline(__always)
    mutating func addsAsRegular(_ shifts: [Shift], _ i: Int, shiftStart: Int64, shiftEnd: Int64, breakMinutes: Int64,
                                workedMinutes: Int64) -> Bool {
        let rules = config.rules
        guard workedMinutes > 0, dayKey >= config.periodStartDay, dayKey <= config.periodEndDay else { return false }
        guard dayCount + workedMinutes <= rules.dailyLimitMinutes, weekCount + workedMinutes <= rules.weeklyLimitMinutes,
              !config.partTimeExcessApplies || dayCount + workedMinutes <= dayScheduled else {
            return addsCountedDayShift(shiftStart: shiftStart, shiftEnd: shiftEnd, workedMinutes: workedMinutes)
        }
        guard !isHoliday(dayKey) else { return false }
        let dayStart = dayKey * DayMath.minutesPerDay
        guard shiftStart - dayStart >= rules.nightEndMinuteOfDay, shiftEnd - dayStart <= rules.nightStartMinuteOfDay else {
            // Some of it at night or on the next date: out of line (most shifts are day shifts).
            return addsAsRegularOverNight(shifts, i, shiftStart: shiftStart, shiftEnd: shiftEnd, breakMinutes: breakMinutes,
                                          workedMinutes: workedMinutes)
        }
        // A day shift inside [nightEnd, nightStart) of its date: no night minute, one date.
        dayCount += workedMinutes
        weekCount += workedMinutes
        var add = DayMinutes(day: dayKey)
        add.regular = workedMinutes
        record(add, calendarDay: dayKey, minutes: workedMinutes)
        return true
    }

    /// `addsAsRegular` of a shift in the period past a limit (overtime, part-time excess): a day
    /// shift inside [nightEnd, nightStart) of a date that is not a 휴일 is still one date with no
    /// night minute, so its pieces all take the counted branch of `piece` and are recorded into
    /// the same entries: all its minutes are counted at once (`countWorked`). False (nothing done)
    /// for anything else, which goes piece by piece.
    @inline(never)
    private mutating func addsCountedDayShift(shiftStart: Int64, shiftEnd: Int64, workedMinutes: Int64) -> Bool {
        let rules = config.rules
        let dayStart = dayKey * DayMath.minutesPerDay
        guard shiftStart - dayStart >= rules.nightEndMinuteOfDay, shiftEnd - dayStart <= rules.nightStartMinuteOfDay,
              !isHoliday(dayKey) else { return false }
        var add = DayMinutes(day: dayKey)
        countWorked(workedMinutes, into: &add)
        record(add, calendarDay: dayKey, minutes: workedMinutes)
        return true
    }

    /// `addsAsRegular` of a shift, its guards passed, that is partly at night or runs past
    /// midnight.
    @inline(never)
    private mutating func addsAsRegularOverNight(_ shifts: [Shift], _ i: Int, shiftStart: Int64, shiftEnd: Int64,
                                                 breakMinutes: Int64, workedMinutes: Int64) -> Bool {
        let dayStart = dayKey * DayMath.minutesPerDay
        let midnight = dayStart + DayMath.minutesPerDay
        if shiftEnd > midnight {
            guard shiftEnd <= midnight + DayMath.minutesPerDay, dayKey + 1 <= config.periodEndDay,
                  !isHoliday(dayKey + 1) else { return false }
        }
        // Every end below lies in [dayStart, dayStart + 2 days] (breaks lie inside the shift).
        var night = nightMinutes(sinceDayStart: shiftEnd - dayStart) - nightMinutes(sinceDayStart: shiftStart - dayStart)
        var firstDayMinutes = min(shiftEnd, midnight) - shiftStart
        if !shifts[i].breaks.isEmpty {
            for j in shifts[i].breaks.indices {
                let b = shifts[i].breaks[j].start.value, be = shifts[i].breaks[j].end.value
                night -= nightMinutes(sinceDayStart: be - dayStart) - nightMinutes(sinceDayStart: b - dayStart)
                firstDayMinutes -= max(0, min(be, midnight) - b)
            }
        } else if breakMinutes > 0 {
            let w = ShiftBreaks.centredWindow(shiftStart: shiftStart, shiftEnd: shiftEnd, breakMinutes: breakMinutes)
            night -= nightMinutes(sinceDayStart: w.end - dayStart) - nightMinutes(sinceDayStart: w.start - dayStart)
            firstDayMinutes -= max(0, min(w.end, midnight) - w.start)
        }
        dayCount += workedMinutes
        weekCount += workedMinutes
        var add = DayMinutes(day: dayKey)
        add.regular = workedMinutes
        add.night = night
        recordStartDay(add)
        if config.collectsCalendarDays {
            // Piece by piece, each date's pieces are recorded in turn (a date without work none).
            if firstDayMinutes > 0 { recordCalendarDay(dayKey, minutes: firstDayMinutes) }
            if workedMinutes > firstDayMinutes { recordCalendarDay(dayKey + 1, minutes: workedMinutes - firstDayMinutes) }
        }
        return true
    }

    /// Advances the counters by the current shift when all its dates (its start day, outside the
    /// period, and at most the next) lie outside the period and none is a 휴일, as classifying it
    /// piece by piece (`work`) would, and records nothing (no piece of it is in the period).
    /// There every minute counts to the start day's counter, and to the week's only while that
    /// counter is under the daily limit (`piece` adds beyond it to the day alone, however the
    /// weekly limit and the day's 소정 split the steps below it). False (nothing done) otherwise.
    @inline(__always)
    mutating func countsOutsidePeriod(shiftEnd: Int64, workedMinutes: Int64) -> Bool {
        let endDay = DayMath.day(ofMinute: shiftEnd - 1)
        guard endDay <= dayKey + 1, endDay < config.periodStartDay || dayKey > config.periodEndDay,
              !isHoliday(dayKey), endDay == dayKey || !isHoliday(endDay) else { return false }
        weekCount += max(0, min(workedMinutes, config.rules.dailyLimitMinutes - dayCount))
        dayCount += workedMinutes
        return true
    }

    /// Night minutes ([nightStart, 24:00) ∪ [00:00, nightEnd) of each date) in the first `m`
    /// minutes (0 … 2 days) from the current shift-start day's midnight: the night minutes of
    /// [a, b) are `nightMinutes(sinceDayStart: b − dayStart) − nightMinutes(sinceDayStart: a − dayStart)`.
    @inline(__always)
    private func nightMinutes(sinceDayStart m: Int64) -> Int64 {
        let rules = config.rules
        let perDay = rules.nightEndMinuteOfDay + (DayMath.minutesPerDay - rules.nightStartMinuteOfDay)
        let (whole, minuteOfDay) = m > DayMath.minutesPerDay ? (perDay, m - DayMath.minutesPerDay) : (0, m)
        return whole + min(minuteOfDay, rules.nightEndMinuteOfDay) + max(0, minuteOfDay - rules.nightStartMinuteOfDay)
    }

    /// Classifies the work interval [from, to) of the current shift.
    private mutating func work(from: Int64, to: Int64) {
        var t = from
        let rules = config.rules
        while t < to {
            let day = DayMath.day(ofMinute: t)
            let minuteOfDay = t - day * DayMath.minutesPerDay
            let boundary: Int64
            let night: Bool
            if minuteOfDay < rules.nightEndMinuteOfDay {
                boundary = day * DayMath.minutesPerDay + rules.nightEndMinuteOfDay; night = true
            } else if minuteOfDay < rules.nightStartMinuteOfDay {
                boundary = day * DayMath.minutesPerDay + rules.nightStartMinuteOfDay; night = false
            } else {
                boundary = (day + 1) * DayMath.minutesPerDay; night = true
            }
            let end = min(to, boundary)
            piece(day: day, minutes: end - t, night: night)
            t = end
        }
    }

    @inline(__always)
    private mutating func isHoliday(_ day: Int64) -> Bool {
        if day != pieceDayKey {
            pieceDayKey = day
            pieceDayIsHoliday = config.classifiesHolidays
                && (DayMath.weekdayIndex(day) == config.weeklyHoliday || config.calendar.isHoliday(Int32(day)))
        }
        return pieceDayIsHoliday
    }

    @inline(__always)
    private mutating func piece(day: Int64, minutes n: Int64, night: Bool) {
        let inPeriod = day >= config.periodStartDay && day <= config.periodEndDay
        var add = DayMinutes(day: dayKey)
        if isHoliday(day) {
            if day != holidayKey { holidayKey = day; holidayCount = 0 }
            let firstTier = max(0, min(n, config.rules.holidayFirstTierMinutes - holidayCount))
            holidayCount += n
            add.holiday = firstTier
            add.holidayOver8 = n - firstTier
        } else {
            countWorked(n, into: &add)
        }
        guard inPeriod else { return }
        if night { add.night = n }
        record(add, calendarDay: day, minutes: n)
    }

    /// Classifies `n` minutes of work on a date that is not a 휴일 against the counters of the
    /// current shift-start day and week (as regular, overtime or part-time excess) and advances
    /// them. Each minute's bucket depends only on the counters before it and every minute moves
    /// them by one, so `n` minutes classify as the same minutes split into any pieces would.
    @inline(__always)
    private mutating func countWorked(_ n: Int64, into add: inout DayMinutes) {
        let dailyLimit = config.rules.dailyLimitMinutes, weeklyLimit = config.rules.weeklyLimitMinutes
        var left = n
        while left > 0 {
            if dayCount >= dailyLimit {
                add.overtime += left
                dayCount += left
                break
            }
            var k = min(left, dailyLimit - dayCount)
            if weekCount >= weeklyLimit {
                add.overtime += k
            } else {
                k = min(k, weeklyLimit - weekCount)
                if config.partTimeExcessApplies && dayCount >= dayScheduled {
                    add.partTimeExcess += k
                } else {
                    if config.partTimeExcessApplies { k = min(k, dayScheduled - dayCount) }
                    add.regular += k
                }
            }
            assert(k > 0, "every step classifies at least one minute")
            dayCount += k
            weekCount += k
            left -= k
        }
    }

    @inline(__always)
    private mutating func record(_ add: DayMinutes, calendarDay: Int64, minutes: Int64) {
        recordStartDay(add)
        if config.collectsCalendarDays { recordCalendarDay(calendarDay, minutes: minutes) }
    }

    @inline(__always)
    private mutating func recordStartDay(_ add: DayMinutes) {
        // The period's buckets are the sums of these entries (`finish`).
        if pendingStartDay.day == add.day {
            pendingStartDay.regular += add.regular
            pendingStartDay.overtime += add.overtime
            pendingStartDay.partTimeExcess += add.partTimeExcess
            pendingStartDay.holiday += add.holiday
            pendingStartDay.holidayOver8 += add.holidayOver8
            pendingStartDay.night += add.night
        } else {
            if pendingStartDay.day != .min { flushStartDay() }
            pendingStartDay = add
        }
    }

    /// Adds the finished entry of a shift-start day to the period's buckets (every minute
    /// recorded went into exactly one of the five worked buckets of its shift-start day's entry,
    /// night overlaying them, so the period's buckets are the entries' sums: seven additions per
    /// day instead of per piece) and, when asked, to `byStartDay`.
    @inline(__always)
    private mutating func flushStartDay() {
        out.buckets.regular += pendingStartDay.regular
        out.buckets.overtime += pendingStartDay.overtime
        out.buckets.partTimeExcess += pendingStartDay.partTimeExcess
        out.buckets.holiday += pendingStartDay.holiday
        out.buckets.holidayOver8 += pendingStartDay.holidayOver8
        out.buckets.night += pendingStartDay.night
        if config.collectsStartDays { out.byStartDay.append(pendingStartDay) }
    }

    @inline(__always)
    private mutating func recordCalendarDay(_ calendarDay: Int64, minutes: Int64) {
        if pendingCalendarDay.day == calendarDay {
            pendingCalendarDay.minutes += minutes
        } else {
            if pendingCalendarDay.day != .min { out.byCalendarDay.append(pendingCalendarDay) }
            pendingCalendarDay = (calendarDay, minutes)
        }
    }
}
