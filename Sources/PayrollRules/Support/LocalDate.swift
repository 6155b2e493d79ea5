/// A calendar date with no time zone: the number of days since 1970-01-01.
///
/// Payroll keys most things by date (work date, premium month, payment date), and the batch path
/// handles millions of them, so a date is a single `Int32` rather than a Foundation `Date`.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int32

    @inlinable public init(daysSinceEpoch: Int32) { self.daysSinceEpoch = daysSinceEpoch }

    /// Creates a date from a proleptic Gregorian year, month (1…12) and day (1…31).
    /// Returns nil when the combination does not exist (2026-02-30).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= LocalDate.daysInMonth(year: year, month: month) else { return nil }
        self.daysSinceEpoch = Int32(LocalDate.daysFromCivil(year: year, month: month, day: day))
    }

    /// Parses `YYYY-MM-DD` exactly (no other forms).
    public init?(iso text: some StringProtocol) {
        let u = Array(text.utf8)
        guard u.count == 10, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-") else { return nil }
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { let c = u[i]; guard c >= 48, c <= 57 else { return nil }; v = v * 10 + Int(c - 48) }
            return v
        }
        guard let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    public static func < (a: LocalDate, b: LocalDate) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    @inlinable public func adding(days: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + Int32(days)) }

    /// Days from `self` to `other` (positive when `other` is later).
    @inlinable public func days(to other: LocalDate) -> Int { Int(other.daysSinceEpoch - daysSinceEpoch) }

    /// ISO weekday: Monday = 0 … Sunday = 6.
    public var weekday: Weekday {
        // 1970-01-01 was a Thursday (index 3).
        let r = (Int(daysSinceEpoch) % 7 + 7 + 3) % 7
        return Weekday(rawValue: r)!
    }

    public var components: (year: Int, month: Int, day: Int) { LocalDate.civilFromDays(Int(daysSinceEpoch)) }
    public var year: Int { components.year }
    public var month: Int { components.month }
    public var day: Int { components.day }

    /// The first day of this date's month.
    public var firstOfMonth: LocalDate { let c = components; return LocalDate(year: c.year, month: c.month, day: 1)! }

    /// `YYYY-MM-DD`.
    public var description: String {
        let c = components
        return LocalDate.pad(c.year, 4) + "-" + LocalDate.pad(c.month, 2) + "-" + LocalDate.pad(c.day, 2)
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    public static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

/// Day of the week, ISO order (Monday first). Raw values index `Contract.scheduleMinutes`.
public enum Weekday: Int, CaseIterable, Sendable, Hashable {
    case mon = 0, tue, wed, thu, fri, sat, sun

    /// The three-letter key used by the calc API (`mon` … `sun`).
    public var key: String {
        switch self {
        case .mon: "mon"
        case .tue: "tue"
        case .wed: "wed"
        case .thu: "thu"
        case .fri: "fri"
        case .sat: "sat"
        case .sun: "sun"
        }
    }

    public init?(key: String) {
        guard let d = Weekday.allCases.first(where: { $0.key == key }) else { return nil }
        self = d
    }
}
