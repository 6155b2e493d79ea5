/// An instant as PostgreSQL's `timestamptz` stores it: microseconds since
/// 2000-01-01 00:00:00 UTC.
public struct PostgresTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds since 2000-01-01T00:00:00Z.
    public var microsecondsSince2000: Int64

    /// Microseconds between the Unix epoch and the PostgreSQL epoch.
    public static let unixEpochOffsetMicroseconds: Int64 = 946_684_800_000_000

    public init(microsecondsSince2000: Int64) {
        self.microsecondsSince2000 = microsecondsSince2000
    }

    public init(unixMicroseconds: Int64) {
        microsecondsSince2000 = unixMicroseconds - Self.unixEpochOffsetMicroseconds
    }

    public var unixMicroseconds: Int64 { microsecondsSince2000 + Self.unixEpochOffsetMicroseconds }

    /// Builds a UTC instant from calendar fields; validated.
    public init(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
        microsecond: Int = 0, utcOffsetSeconds: Int = 0
    ) throws(PostgresError) {
        let date = try PostgresDate(year: year, month: month, day: day)
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (0...999_999).contains(microsecond), (-86_400...86_400).contains(utcOffsetSeconds)
        else {
            throw .invalidUsage("invalid time \(hour):\(minute):\(second).\(microsecond)")
        }
        let secondsOfDay = Int64(hour * 3600 + minute * 60 + second - utcOffsetSeconds)
        microsecondsSince2000 = Int64(date.daysSince2000) * 86_400_000_000 + secondsOfDay * 1_000_000 + Int64(microsecond)
    }

    public static func < (lhs: PostgresTimestamp, rhs: PostgresTimestamp) -> Bool {
        lhs.microsecondsSince2000 < rhs.microsecondsSince2000
    }

    /// ISO 8601 in UTC, e.g. `2026-11-22 03:00:00.000001+00` (accepted by PostgreSQL as input).
    public var description: String {
        let (days, microsecondsOfDay) = microsecondsSince2000.floorDividedAndModulo(86_400_000_000)
        let date = PostgresDate(daysSince2000: Int32(truncatingIfNeeded: days))
        let secondsOfDay = Int(microsecondsOfDay / 1_000_000)
        let micros = Int(microsecondsOfDay % 1_000_000)
        return date.description + " " + PostgresDate.pad(secondsOfDay / 3600, 2) + ":"
            + PostgresDate.pad(secondsOfDay / 60 % 60, 2) + ":" + PostgresDate.pad(secondsOfDay % 60, 2)
            + "." + PostgresDate.pad(micros, 6) + "+00"
    }

    /// Parses PostgreSQL's ISO `timestamptz` output: `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]`.
    public init(iso text: some StringProtocol) throws(PostgresError) {
        let bytes = Array(text.utf8)
        func fail() -> PostgresError { .decoding("not an ISO timestamptz: '\(text)'") }
        guard bytes.count >= 22, bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let hour = PostgresDate.digits(bytes[11..<13]), let minute = PostgresDate.digits(bytes[14..<16]),
              let second = PostgresDate.digits(bytes[17..<19])
        else { throw fail() }
        let date = try PostgresDate(iso: String(decoding: bytes[0..<10], as: UTF8.self))
        var index = 19
        var microsecond = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 100_000
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                microsecond += Int(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
        else { throw fail() }
        let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
        let offsetParts = bytes[(index + 1)...].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard (1...3).contains(offsetParts.count) else { throw fail() }
        var offsetSeconds = 0
        for (position, part) in offsetParts.enumerated() {
            guard part.count == 2, let value = PostgresDate.digits(part) else { throw fail() }
            offsetSeconds += value * [3600, 60, 1][position]
        }
        let components = date.components
        try self.init(
            year: components.year, month: components.month, day: components.day, hour: hour,
            minute: minute, second: second, microsecond: microsecond, utcOffsetSeconds: sign * offsetSeconds
        )
    }
}

extension Int64 {
    /// Floor division and the matching non-negative remainder.
    func floorDividedAndModulo(_ divisor: Int64) -> (Int64, Int64) {
        var quotient = self / divisor
        var remainder = self % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}
