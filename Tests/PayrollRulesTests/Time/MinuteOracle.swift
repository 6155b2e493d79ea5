@testable import PayrollRules

/// A deliberately plain, per-minute implementation of calc-api pinned rules 1–6 (the pseudo-code
/// of rules spec §1.3 with the pinned choices), used only to check the production segment
/// classifier. It shares nothing with `WorkClassifier` but the input types.
struct MinuteOracle {
    var buckets = MinuteBuckets()
    /// Per shift-start date: [regular, overtime, partTimeExcess, holiday, holidayOver8, night].
    var byStartDay: [LocalDate: [Int64]] = [:]

    init(_ input: PayrollInput) {
        let c = input.contract
        let five = input.workplace.fiveOrMore
        let calendar = input.workplace.holidays ?? HolidayCalendar.korea
        let holidaysCount = five || c.holidayAllowance == .always
        let partTime = c.isPartTime && (five || c.overtimeAllowance == .always)
        var dayCounter: [LocalDate: Int64] = [:]
        var weekRegular: [LocalDate: Int64] = [:]
        var holidayCounter: [LocalDate: Int64] = [:]

        for shift in input.shifts {
            let s = shift.start.value, e = shift.end.value
            // Break windows by the rule text.
            var windows: [(Int64, Int64)] = shift.breaks.map { ($0.start.value, $0.end.value) }
            if windows.isEmpty, let b = shift.breakMinutes ?? c.defaultBreakMinutes, b > 0 {
                let mid = s + (e - s) / 2
                windows = [(mid - Int64(b) / 2, mid - Int64(b) / 2 + Int64(b))]
            }
            let startDate = shift.start.date
            // The week of the shift-start day: walk back to weekStart.
            var weekKey = startDate
            while weekKey.weekday != c.weekStart { weekKey = weekKey.adding(days: -1) }
            let scheduledToday = Int64(c.scheduleMinutes[startDate.weekday.rawValue])
            // Counters of this shift's start day and week, written back after the shift.
            var today = dayCounter[startDate, default: 0]
            var week = weekRegular[weekKey, default: 0]
            var row: [Int64] = [0, 0, 0, 0, 0, 0]
            defer {
                dayCounter[startDate] = today
                weekRegular[weekKey] = week
                if row != [0, 0, 0, 0, 0, 0] {
                    byStartDay[startDate] = zip(byStartDay[startDate] ?? [0, 0, 0, 0, 0, 0], row).map { $0 + $1 }
                }
            }

            var m = s
            while m < e {
                defer { m += 1 }
                if windows.contains(where: { m >= $0.0 && m < $0.1 }) { continue }
                let minute = KoreaMinute(m)
                let date = minute.date
                let isHoliday = holidaysCount && (calendar.contains(date) || date.weekday == c.weeklyHoliday)
                var cls: Int
                if isHoliday {
                    holidayCounter[date, default: 0] += 1
                    cls = holidayCounter[date]! <= 480 ? 3 : 4
                } else {
                    today += 1
                    if today > 480 {
                        cls = 1
                    } else {
                        week += 1
                        if week > 2400 { cls = 1 }
                        else if partTime && today > scheduledToday { cls = 2 }
                        else { cls = 0 }
                    }
                }
                guard date >= input.periodStart && date <= input.periodEnd else { continue }
                let minuteOfDay = minute.minuteOfDay
                let night = minuteOfDay >= 22 * 60 || minuteOfDay < 6 * 60
                row[cls] += 1
                if night { row[5] += 1 }
                buckets.worked += 1
                switch cls {
                case 0: buckets.regular += 1
                case 1: buckets.overtime += 1
                case 2: buckets.partTimeExcess += 1
                case 3: buckets.holiday += 1
                default: buckets.holidayOver8 += 1
                }
                if night { buckets.night += 1 }
            }
        }
    }

    /// The worked-time lines (code, multiplier, amount) the oracle's buckets imply, priced
    /// independently: ⌈minutes × rate × multiplier / 60⌉.
    static func workedTimeLines(_ b: MinuteBuckets, _ input: PayrollInput, rate: Rational) -> [String] {
        let c = input.contract
        let five = input.workplace.fiveOrMore
        func pays(_ s: AllowanceSwitch) -> Bool { s == .always || (s == .statutory && five) }
        func price(_ minutes: Int64, _ num: Int64, _ den: Int64) -> Int64 {
            let n = Int128(minutes) * Int128(rate.numerator) * Int128(num)
            let d = Int128(60) * Int128(rate.denominator) * Int128(den)
            return Int64((n + d - 1) / d)
        }
        var out: [String] = []
        if c.wageType == .monthly {
            let extra = b.overtime + b.partTimeExcess + b.holiday + b.holidayOver8
            if extra > 0 { out.append("base_pay 1 \(price(extra, 1, 1))") }
        } else {
            out.append("base_pay 1 \(price(b.worked, 1, 1))")
        }
        if pays(c.overtimeAllowance) && b.overtime > 0 { out.append("overtime 0.5 \(price(b.overtime, 1, 2))") }
        if pays(c.overtimeAllowance) && b.partTimeExcess > 0 { out.append("part_time_excess 0.5 \(price(b.partTimeExcess, 1, 2))") }
        if pays(c.nightAllowance) && b.night > 0 { out.append("night 0.5 \(price(b.night, 1, 2))") }
        if pays(c.holidayAllowance) && b.holiday > 0 { out.append("holiday_work 0.5 \(price(b.holiday, 1, 2))") }
        if pays(c.holidayAllowance) && b.holidayOver8 > 0 { out.append("holiday_work 1 \(price(b.holidayOver8, 1, 1))") }
        return out
    }
}

extension EarningsResult {
    /// The worked-time lines as `code multiplier amount` (the monthly salary line excluded).
    var workedTimeLineKeys: [String] {
        earnings.filter { $0.code != .weeklyAllowance && $0.code != .paidHoliday && $0.rate != nil }
            .map { "\($0.code.rawValue) \($0.multiplier ?? "-") \($0.amount)" }
    }
}
