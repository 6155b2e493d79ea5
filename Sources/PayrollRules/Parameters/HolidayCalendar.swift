/// What kind of 휴일 a calendar date is (rules spec §1.4.4).
public enum HolidayKind: String, Sendable, CaseIterable {
    case publicHoliday = "public"
    case substitute
    case temporary
    case election
    case laborDay = "labor_day"
    case company
}

/// A workplace calendar of 휴일 dates (Sundays are not listed: the 주휴일 comes from the contract).
/// Lookups are a bit test over the covered years, because the batch path asks for every minute
/// boundary of every shift.
public struct HolidayCalendar: Sendable {
    public struct Entry: Sendable, Hashable {
        public var date: LocalDate
        public var kind: HolidayKind
        public var name: String
        public var source: String
        public init(date: LocalDate, kind: HolidayKind, name: String, source: String = "workplace") {
            self.date = date
            self.kind = kind
            self.name = name
            self.source = source
        }
    }

    public let entries: [Entry]
    /// Bit i set ⇔ `baseDay + i` is a holiday.
    private let bits: [UInt64]
    private let baseDay: Int32

    public init(_ entries: [Entry]) {
        let sorted = entries.sorted { $0.date < $1.date }
        self.entries = sorted
        let lo = sorted.first?.date.daysSinceEpoch ?? 0
        let hi = sorted.last?.date.daysSinceEpoch ?? 0
        var bits = [UInt64](repeating: 0, count: Int(hi - lo) / 64 + 1)
        for e in sorted {
            let i = Int(e.date.daysSinceEpoch - lo)
            bits[i >> 6] |= 1 << UInt64(i & 63)
        }
        self.bits = bits
        self.baseDay = lo
    }

    /// A calendar of bare dates (the calc API's `workplace.holidays`), all of kind `company`
    /// except May 1, which is 노동절 / 근로자의 날.
    public init(dates: [LocalDate]) {
        self.init(dates.map { d in
            d.month == 5 && d.day == 1
                ? Entry(date: d, kind: .laborDay, name: "노동절", source: "request")
                : Entry(date: d, kind: .company, name: "휴일", source: "request")
        })
    }

    @inlinable public func contains(_ date: LocalDate) -> Bool { isHoliday(date.daysSinceEpoch) }

    public func isHoliday(_ daysSinceEpoch: Int32) -> Bool {
        let i = Int(daysSinceEpoch - baseDay)
        guard i >= 0, i < bits.count * 64 else { return false }
        return bits[i >> 6] & (1 << UInt64(i & 63)) != 0
    }

    public func entry(on date: LocalDate) -> Entry? { entries.first { $0.date == date } }

    /// The built-in Korean calendar for 2025–2026: 관공서 공휴일 (without Sundays), 대체·임시공휴일,
    /// election days and 노동절/근로자의 날. Source: rules spec §1.4.4 ([S8] hyunbinseo/holidays-kr,
    /// 우주항공청 월력요항). Extend by adding a year's entries here (and to `sql/` seeds).
    public static let korea = HolidayCalendar(koreaEntries)

    /// Years the built-in calendar covers.
    public static let koreaCoveredYears: ClosedRange<Int> = 2025...2026

    static let koreaEntries: [Entry] = {
        let s = "rules spec §1.4.4 [S8]"
        func e(_ y: Int, _ m: Int, _ d: Int, _ k: HolidayKind, _ n: String) -> Entry {
            Entry(date: LocalDate(year: y, month: m, day: d)!, kind: k, name: n, source: s)
        }
        return [
            // 2025
            e(2025, 1, 1, .publicHoliday, "신정"),
            e(2025, 1, 27, .temporary, "임시공휴일"),
            e(2025, 1, 28, .publicHoliday, "설날 연휴"),
            e(2025, 1, 29, .publicHoliday, "설날"),
            e(2025, 1, 30, .publicHoliday, "설날 연휴"),
            e(2025, 3, 1, .publicHoliday, "삼일절"),
            e(2025, 3, 3, .substitute, "대체공휴일(삼일절)"),
            e(2025, 5, 1, .laborDay, "근로자의 날"),
            e(2025, 5, 5, .publicHoliday, "어린이날·부처님오신날"),
            e(2025, 5, 6, .substitute, "대체공휴일"),
            e(2025, 6, 3, .election, "제21대 대통령선거"),
            e(2025, 6, 6, .publicHoliday, "현충일"),
            e(2025, 8, 15, .publicHoliday, "광복절"),
            e(2025, 10, 3, .publicHoliday, "개천절"),
            e(2025, 10, 5, .publicHoliday, "추석 연휴"),
            e(2025, 10, 6, .publicHoliday, "추석"),
            e(2025, 10, 7, .publicHoliday, "추석 연휴"),
            e(2025, 10, 8, .substitute, "대체공휴일(추석)"),
            e(2025, 10, 9, .publicHoliday, "한글날"),
            e(2025, 12, 25, .publicHoliday, "기독탄신일"),
            // 2026
            e(2026, 1, 1, .publicHoliday, "신정"),
            e(2026, 2, 16, .publicHoliday, "설날 연휴"),
            e(2026, 2, 17, .publicHoliday, "설날"),
            e(2026, 2, 18, .publicHoliday, "설날 연휴"),
            e(2026, 3, 2, .substitute, "대체공휴일(삼일절)"),
            e(2026, 5, 1, .laborDay, "노동절"),
            e(2026, 5, 5, .publicHoliday, "어린이날"),
            e(2026, 5, 25, .substitute, "대체공휴일(부처님오신날)"),
            e(2026, 6, 3, .election, "제9회 전국동시지방선거"),
            e(2026, 6, 6, .publicHoliday, "현충일"),
            e(2026, 7, 17, .publicHoliday, "제헌절"),  // [M] in force per 공휴일법 amendment 2026-01-29
            e(2026, 8, 15, .publicHoliday, "광복절"),
            e(2026, 8, 17, .substitute, "대체공휴일(광복절)"),
            e(2026, 9, 24, .publicHoliday, "추석 연휴"),
            e(2026, 9, 25, .publicHoliday, "추석"),
            e(2026, 9, 26, .publicHoliday, "추석 연휴"),
            e(2026, 10, 3, .publicHoliday, "개천절"),
            e(2026, 10, 5, .substitute, "대체공휴일(개천절)"),
            e(2026, 10, 9, .publicHoliday, "한글날"),
            e(2026, 12, 25, .publicHoliday, "기독탄신일"),
        ]
    }()
}
