@testable import PayrollRules

// The production classifier as session 6 left it (main f44c051), frozen here as the reference the
// rewritten `WorkClassifier` must agree with exactly: every bucket, every per-day entry, every
// shift-start day and every warning (text included). Only the type's name changed (and it uses
// the production `WorkClassifier.Config`).
struct ReferenceWorkClassifier {
    typealias Config = WorkClassifier.Config
    let config: Config
    var out = ClassifiedWork()

    // Counters.
    private var dayKey = Int64.min, dayCount: Int64 = 0, dayScheduled: Int64 = 0
    private var weekKey = Int64.min, weekCount: Int64 = 0
    private var holidayKey = Int64.min, holidayCount: Int64 = 0
    // Calendar-day cache.
    private var pieceDayKey = Int64.min, pieceDayIsHoliday = false
    // The entries of `out.byStartDay` and `out.byCalendarDay` being summed, appended when their
    // day changes and at the end (`finish()`), so a piece adds to plain fields.
    // `Int64.min` as the day of an empty entry (real days are within `DayMath.dayRange`).
    private var pendingStartDay = DayMinutes(day: .min)
    private var pendingCalendarDay: (day: Int64, minutes: Int64) = (.min, 0)
    private var lastShiftStartDay = Int64.min

    init(_ config: Config) { self.config = config }

    static func classify(_ shifts: [Shift], _ config: Config) throws(PayrollError) -> ClassifiedWork {
        var c = ReferenceWorkClassifier(config)
        c.out.byStartDay.reserveCapacity(min(shifts.count, 64))
        c.out.shiftStartDays.reserveCapacity(shifts.count)
        var previousEnd = Int64.min
        // Shifts are read in place: copying each out (`for shift in shifts`) retained and
        // released its break array.
        for i in shifts.indices {
            let s = shifts[i].start.value, e = shifts[i].end.value
            let startDay = DayMath.day(ofMinute: s)
            guard DayMath.dayRange.contains(startDay), DayMath.dayRange.contains(DayMath.day(ofMinute: e)) else {
                throw PayrollError(.invalidValue, "shift time out of range", field: "shifts[\(i)].start")
            }
            guard e > s else { throw PayrollError(.invalidValue, "a shift must end after it starts", field: "shifts[\(i)].end") }
            guard s >= previousEnd else {
                throw PayrollError(.invalidValue, "shifts must be sorted by start and must not overlap", field: "shifts[\(i)].start")
            }
            previousEnd = e
            let breaks = try ReferenceShiftBreaks.validate(shifts, index: i, defaultBreakMinutes: config.defaultBreakMinutes)
            c.startShift(onDay: startDay)
            if c.dayKey >= config.periodStartDay && c.dayKey <= config.periodEndDay {
                c.checkBreak(shiftMinutes: e - s, breaks: breaks)
            }
            if c.addsAsRegularDaytime(shiftStart: s, shiftEnd: e, workedMinutes: e - s - breaks.totalMinutes) {
                // Classified whole (the usual day shift); same buckets as piece by piece below.
            } else if !shifts[i].breaks.isEmpty {
                var cursor = s
                for b in shifts[i].breaks {
                    c.work(from: cursor, to: b.start.value)
                    cursor = b.end.value
                }
                c.work(from: cursor, to: e)
            } else if breaks.totalMinutes > 0 {
                let w = ReferenceShiftBreaks.centredWindow(shiftStart: s, shiftEnd: e, breakMinutes: breaks.totalMinutes)
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
        if pendingStartDay.day != .min { out.byStartDay.append(pendingStartDay) }
        if pendingCalendarDay.day != .min { out.byCalendarDay.append(pendingCalendarDay) }
        pendingStartDay = DayMinutes(day: .min)
        pendingCalendarDay = (.min, 0)
        // Every minute recorded went into exactly one of the five worked buckets of its
        // shift-start day's entry (night overlays them), so the period's buckets are their sums:
        // one pass over the days instead of seven additions per piece.
        for k in out.byStartDay.indices {
            out.buckets.regular += out.byStartDay[k].regular
            out.buckets.overtime += out.byStartDay[k].overtime
            out.buckets.partTimeExcess += out.byStartDay[k].partTimeExcess
            out.buckets.holiday += out.byStartDay[k].holiday
            out.buckets.holidayOver8 += out.byStartDay[k].holidayOver8
            out.buckets.night += out.byStartDay[k].night
        }
        out.buckets.worked = out.buckets.regular + out.buckets.overtime + out.buckets.partTimeExcess
            + out.buckets.holiday + out.buckets.holidayOver8
    }

    /// Moves the counters to the shift starting on `day` (the shift-start day of its minutes).
    private mutating func startShift(onDay day: Int64) {
        if lastShiftStartDay != day {
            lastShiftStartDay = day
            out.shiftStartDays.append(day)
        }
        // One weekday for the day's schedule and its week's start.
        let weekday = DayMath.weekdayIndex(day)
        if day != dayKey {
            dayKey = day
            dayCount = 0
            dayScheduled = Int64(config.scheduleMinutes[weekday])
        }
        let week = DayMath.weekStartDay(of: day, weekday: weekday, weekStart: config.weekStart)
        if week != weekKey {
            weekKey = week
            weekCount = 0
        }
    }

    private mutating func checkBreak(shiftMinutes: Int64, breaks: (totalMinutes: Int64, statutoryMinutes: Int64)) {
        let net = shiftMinutes - breaks.totalMinutes
        let required = config.rules.requiredBreakMinutes(netWorkMinutes: net)
        guard breaks.statutoryMinutes < required else { return }
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
    /// its work intervals piece by piece (`work`) would: the shift lies inside one day's
    /// [`nightEnd`, `nightStart`) (so no piece is night or on another date), that date is in the
    /// period and not a 휴일, and the minutes fit under the daily and weekly limits and, where
    /// part-time excess applies, under the day's scheduled minutes (so every step of `piece` takes
    /// the `regular` branch with all that is left). The counters advance by the same minutes and
    /// `record` sums the same amounts into the same entries. False (nothing done) otherwise.
    /// `workedMinutes` is the shift less its breaks, which lie inside it (checked by `ShiftBreaks`).
    mutating func addsAsRegularDaytime(shiftStart: Int64, shiftEnd: Int64, workedMinutes: Int64) -> Bool {
        let rules = config.rules
        let dayStart = dayKey * DayMath.minutesPerDay
        guard workedMinutes > 0,
              shiftStart - dayStart >= rules.nightEndMinuteOfDay, shiftEnd - dayStart <= rules.nightStartMinuteOfDay,
              dayKey >= config.periodStartDay, dayKey <= config.periodEndDay,
              dayCount + workedMinutes <= rules.dailyLimitMinutes, weekCount + workedMinutes <= rules.weeklyLimitMinutes,
              !config.partTimeExcessApplies || dayCount + workedMinutes <= dayScheduled,
              !isHoliday(dayKey) else { return false }
        dayCount += workedMinutes
        weekCount += workedMinutes
        var add = DayMinutes(day: dayKey)
        add.regular = workedMinutes
        record(add, calendarDay: dayKey, minutes: workedMinutes)
        return true
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
        guard inPeriod else { return }
        if night { add.night = n }
        record(add, calendarDay: day, minutes: n)
    }

    @inline(__always)
    private mutating func record(_ add: DayMinutes, calendarDay: Int64, minutes: Int64) {
        // The period's buckets are the sums of these entries (`finish`).
        if pendingStartDay.day == add.day {
            pendingStartDay.regular += add.regular
            pendingStartDay.overtime += add.overtime
            pendingStartDay.partTimeExcess += add.partTimeExcess
            pendingStartDay.holiday += add.holiday
            pendingStartDay.holidayOver8 += add.holidayOver8
            pendingStartDay.night += add.night
        } else {
            if pendingStartDay.day != .min { out.byStartDay.append(pendingStartDay) }
            pendingStartDay = add
        }
        if config.collectsCalendarDays {
            if pendingCalendarDay.day == calendarDay {
                pendingCalendarDay.minutes += minutes
            } else {
                if pendingCalendarDay.day != .min { out.byCalendarDay.append(pendingCalendarDay) }
                pendingCalendarDay = (calendarDay, minutes)
            }
        }
    }
}

/// Where a shift's breaks fall (calc-api pinned rule 5) and whether they meet §54.
///
/// A shift's work is `[start, end)` minus its break windows. Explicit `breaks` win; otherwise
/// `breakMinutes` (else the contract's `defaultBreakMinutes`) become one window centred on the
/// shift's midpoint: start = midpoint − ⌊b/2⌋, the midpoint of an odd-length shift floored.
enum ReferenceShiftBreaks {
    /// The single break window placed around the midpoint, `[start, end)` in Korea minutes.
    @inline(__always)
    static func centredWindow(shiftStart: Int64, shiftEnd: Int64, breakMinutes: Int64) -> (start: Int64, end: Int64) {
        let midpoint = shiftStart + (shiftEnd - shiftStart) / 2
        let start = midpoint - breakMinutes / 2
        return (start, start + breakMinutes)
    }

    /// Validates the breaks of `shifts[i]` (`i` also for error paths) and returns the total break
    /// minutes and the break minutes that count for §54 (those strictly inside the shift: a
    /// break at the very start or end is not "근로시간 도중"). The shift is read in place in its
    /// array: a copy of it retained and released its break array, once per shift of a batch.
    static func validate(_ shifts: [Shift], index i: Int, defaultBreakMinutes: Int32?)
        throws(PayrollError) -> (totalMinutes: Int64, statutoryMinutes: Int64) {
        let s = shifts[i].start.value, e = shifts[i].end.value
        if !shifts[i].breaks.isEmpty {
            var cursor = s
            var total: Int64 = 0, inside: Int64 = 0
            for j in shifts[i].breaks.indices {
                let bs = shifts[i].breaks[j].start.value, be = shifts[i].breaks[j].end.value
                guard be > bs else {
                    throw PayrollError(.invalidValue, "a break must end after it starts", field: "shifts[\(i)].breaks[\(j)].end")
                }
                guard bs >= cursor, be <= e else {
                    throw PayrollError(.invalidValue, "breaks must lie inside the shift, in order, without overlapping",
                                       field: "shifts[\(i)].breaks[\(j)].start")
                }
                total += be - bs
                if bs > s && be < e { inside += be - bs }
                cursor = be
            }
            return (total, inside)
        }
        // The field path is built only on the error path (this runs for every shift of a batch).
        let given = shifts[i].breakMinutes
        func field() -> String { given != nil ? "shifts[\(i)].breakMinutes" : "contract.defaultBreakMinutes" }
        let b = Int64(given ?? defaultBreakMinutes ?? 0)
        guard b >= 0 else { throw PayrollError(.invalidValue, "break minutes must not be negative", field: field()) }
        guard b <= e - s else {
            throw PayrollError(.invalidValue, "break of \(b) minutes is longer than the \(e - s)-minute shift", field: field())
        }
        guard b > 0 else { return (0, 0) }
        let w = centredWindow(shiftStart: s, shiftEnd: e, breakMinutes: b)
        return (b, (w.start > s && w.end < e) ? b : 0)
    }
}
