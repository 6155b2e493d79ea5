/// Integer day arithmetic on `daysSinceEpoch` numbers, used on the hot path instead of building
/// `LocalDate` components.
enum DayMath {
    static let minutesPerDay: Int64 = 1440

    /// ⌊a / b⌋ for b > 0.
    @inline(__always) static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && a < 0) ? q - 1 : q
    }

    /// Day number of a Korea wall-clock minute.
    @inline(__always) static func day(ofMinute m: Int64) -> Int64 {
        // Minutes of the days payroll uses: shift by whole days to divide unsigned by a literal.
        if m >= -2_000_000 * 1440 && m < 2_000_000 * 1440 {
            return Int64(truncatingIfNeeded: UInt64(truncatingIfNeeded: m &+ 2_000_000 * 1440) / 1440) &- 2_000_000
        }
        return floorDiv(m, minutesPerDay)
    }

    /// ISO weekday index (Monday = 0) of a day number; 1970-01-01 was a Thursday.
    @inline(__always) static func weekdayIndex(_ day: Int64) -> Int {
        // One unsigned remainder for the days payroll uses (shifting by a multiple of 7 keeps
        // the weekday); the general form for any other day.
        if day >= -weekdayShift && day <= weekdayShift {
            return Int(truncatingIfNeeded: UInt64(truncatingIfNeeded: day &+ weekdayShift &+ 3) % 7)
        }
        return Int(((day % 7) + 7 + 3) % 7)
    }

    /// A multiple of 7 above every day in `dayRange`.
    @usableFromInline static let weekdayShift: Int64 = 7 * 200_000

    /// First day of the 7-day week (starting on `weekStart`) that holds `day`.
    @inline(__always) static func weekStartDay(of day: Int64, weekStart: Int) -> Int64 {
        weekStartDay(of: day, weekday: weekdayIndex(day), weekStart: weekStart)
    }

    /// `weekStartDay(of:weekStart:)` for a day whose `weekdayIndex` is known.
    @inline(__always) static func weekStartDay(of day: Int64, weekday: Int, weekStart: Int) -> Int64 {
        // Both are weekday indices 0…6, so the difference is −6…6: one conditional add instead
        // of a signed remainder (the remainder kept for any other values).
        let offset = weekday - weekStart
        guard weekday >= 0 && weekday < 7 && weekStart >= 0 && weekStart < 7 else { return day - Int64((offset + 7) % 7) }
        return day - Int64(offset < 0 ? offset + 7 : offset)
    }

    /// Inclusive range of day numbers a payroll date may take (years ~ −770 … 4700): keeps every
    /// `Int32` conversion and product far from overflow.
    static let dayRange: ClosedRange<Int64> = -1_000_000...1_000_000

    @inline(__always) static func date(_ day: Int64) -> LocalDate { LocalDate(daysSinceEpoch: Int32(day)) }

    /// The first day `civil` takes apart itself: 0000-03-01, day −719,468 (the first day of
    /// Hinnant's era 0; his eras start on a 1 March).
    static let civilDayFirst: Int64 = -719_468

    /// `LocalDate.civilFromDays(day)`: the same algorithm (Hinnant's `civil_from_days`) in
    /// unsigned arithmetic for the days from `civilDayFirst` on, where every intermediate is
    /// ≥ 0 and the signed divisions and remainders give the unsigned ones' results (a signed
    /// division by a constant costs sign fix-ups the unsigned one does not: ~100 → ~45
    /// instructions per date, callgrind); other days take `LocalDate.civilFromDays`.
    /// `DayMathTests` compares both for every day of `dayRange`.
    @inline(__always) static func civil(_ day: Int64) -> (year: Int, month: Int, day: Int) {
        guard day >= civilDayFirst && day <= dayRange.upperBound else { return LocalDate.civilFromDays(Int(day)) }
        let z = UInt64(day - civilDayFirst)
        let era = z / 146_097
        let dayOfEra = z - era * 146_097  // 0 … 146,096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0 … 399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0 … 365, from 1 March
        let monthFromMarch = (5 * dayOfYear + 2) / 153  // 0 … 11
        let dayOfMonth = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        return (year, Int(month), Int(dayOfMonth))
    }

    /// `LocalDate.daysFromCivil(year:month:day:)` of a valid date (month 1…12, day of that
    /// month), in unsigned arithmetic for the years 1 … 4,000,000 (the other years take
    /// `LocalDate.daysFromCivil`); the same algorithm (Hinnant's `days_from_civil`), the same
    /// day number (`DayMathTests`).
    @inline(__always) static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        guard year >= 1 && year <= 4_000_000 && month >= 1 && month <= 12 && day >= 1 && day <= 31 else {
            return Int64(LocalDate.daysFromCivil(year: year, month: month, day: day))
        }
        let y = UInt64(month <= 2 ? year - 1 : year)
        let era = y / 400
        let yearOfEra = y - era * 400  // 0 … 399
        let monthFromMarch = UInt64(month > 2 ? month - 3 : month + 9)  // 0 … 11
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + UInt64(day) - 1  // 0 … 365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // 0 … 146,096
        return Int64(era * 146_097 + dayOfEra) + civilDayFirst
    }

    /// `date.firstOfMonth`, from `civil`: the date less its day of the month, plus one.
    @inline(__always) static func firstOfMonth(_ date: LocalDate) -> LocalDate {
        let dayOfMonth = civil(Int64(date.daysSinceEpoch)).day
        return LocalDate(daysSinceEpoch: date.daysSinceEpoch - Int32(dayOfMonth - 1))
    }
}

/// Exact helpers shared by the pricing code.
enum ExactMath {
    /// ⌈n / d⌉ for n ≥ 0, d > 0, or nil when it does not fit in `Int64`.
    static func ceilDiv(_ n: Int128, _ d: Int128) -> Int64? {
        // Both in `Int64` (the usual case): one hardware division instead of an `Int128` one.
        if let n64 = Int64(exactly: n), let d64 = Int64(exactly: d), n64 >= 0, d64 > 0 {
            let (sum, overflow) = n64.addingReportingOverflow(d64 - 1)
            if !overflow { return sum / d64 }
        }
        let q = (n + d - 1) / d
        return q <= Int128(Int64.max) ? Int64(q) : nil
    }

    /// n / d in lowest terms, or nil when it does not fit in `Rational`'s `Int64`s.
    static func rational(_ n: Int128, _ d: Int128) -> Rational? {
        guard d != 0 else { return nil }
        // Both in `Int64` (the usual case): reduce there; the result is the same fraction.
        if let n64 = Int64(exactly: n), let d64 = Int64(exactly: d), let r = Rational(reducing64: n64, d64) { return r }
        var a = n < 0 ? -n : n, b = d < 0 ? -d : d
        while b != 0 { (a, b) = (b, a % b) }
        let g = a == 0 ? 1 : a
        var rn = n / g, rd = d / g
        if rd < 0 { rn = -rn; rd = -rd }
        guard rn >= Int128(Int64.min) + 1, rn <= Int128(Int64.max), rd <= Int128(Int64.max) else { return nil }
        return Rational(Int64(rn), Int64(rd))
    }
}
