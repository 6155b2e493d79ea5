/// A wall-clock minute in Korea time (KST, UTC+9, no daylight saving since 1988): minutes since
/// 1970-01-01T00:00 *Korea local time*. Day boundaries, night (22:00–06:00) and holidays are all
/// Korea wall-clock notions, so the whole engine works in this unit.
public struct KoreaMinute: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var value: Int64

    @inlinable public init(_ value: Int64) { self.value = value }

    public init(date: LocalDate, minuteOfDay: Int) {
        self.value = Int64(date.daysSinceEpoch) * 1440 + Int64(minuteOfDay)
    }

    /// Korea offset from UTC in minutes.
    public static let offsetMinutes: Int64 = 540

    /// From minutes since the Unix epoch in UTC.
    @inlinable public init(utcMinutes: Int64) { self.value = utcMinutes + 540 }

    public var utcMinutes: Int64 { value - KoreaMinute.offsetMinutes }

    /// The Korea calendar date of this minute.
    public var date: LocalDate {
        LocalDate(daysSinceEpoch: Int32(value >= 0 ? value / 1440 : (value - 1439) / 1440))
    }

    /// 0 …< 1440.
    public var minuteOfDay: Int { Int(((value % 1440) + 1440) % 1440) }

    public static func < (a: KoreaMinute, b: KoreaMinute) -> Bool { a.value < b.value }

    @inlinable public func adding(minutes: Int64) -> KoreaMinute { KoreaMinute(value + minutes) }

    /// `YYYY-MM-DDTHH:MM:00+09:00`.
    public var description: String {
        let m = minuteOfDay
        return date.description + "T" + LocalDate.pad(m / 60, 2) + ":" + LocalDate.pad(m % 60, 2) + ":00+09:00"
    }
}
