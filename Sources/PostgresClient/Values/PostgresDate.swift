/// A calendar date as PostgreSQL stores it: days since 2000-01-01 (the PostgreSQL epoch).
/// Proleptic Gregorian; no time zone.
public struct PostgresDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 2000-01-01 (negative before it).
    public var daysSince2000: Int32

    public init(daysSince2000: Int32) {
        self.daysSince2000 = daysSince2000
    }

    /// Validates the calendar date (year 1...9999).
    public init(year: Int, month: Int, day: Int) throws(PostgresError) {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...PostgresDate.daysInMonth(year: year, month: month)).contains(day)
        else {
            throw .invalidUsage("invalid date \(year)-\(month)-\(day)")
        }
        daysSince2000 = Int32(PostgresDate.daysFromCivil(year: year, month: month, day: day) - PostgresDate.epochDaysFrom1970)
    }

    /// (year, month, day) of this date.
    public var components: (year: Int, month: Int, day: Int) {
        PostgresDate.civilFromDays(Int(daysSince2000) + PostgresDate.epochDaysFrom1970)
    }

    public var description: String {
        let (year, month, day) = components
        return PostgresDate.pad(year, 4) + "-" + PostgresDate.pad(month, 2) + "-" + PostgresDate.pad(day, 2)
    }

    public static func < (lhs: PostgresDate, rhs: PostgresDate) -> Bool {
        lhs.daysSince2000 < rhs.daysSince2000
    }

    /// Parses `YYYY-MM-DD` (PostgreSQL's ISO output).
    public init(iso text: some StringProtocol) throws(PostgresError) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 10, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"),
              let year = PostgresDate.digits(utf8[0..<4]), let month = PostgresDate.digits(utf8[5..<7]),
              let day = PostgresDate.digits(utf8[8..<10])
        else {
            throw .decoding("not an ISO date: '\(text)'")
        }
        try self.init(year: year, month: month, day: day)
    }

    // MARK: calendar arithmetic (Howard Hinnant's civil-from-days algorithms)

    /// Days from 1970-01-01 to 2000-01-01.
    static let epochDaysFrom1970 = 10_957

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return bytes.isEmpty ? nil : value
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
