import PayrollRules
import PostgresClient

/// Conversions between PostgreSQL's epoch (2000-01-01) and PayrollRules' (1970-01-01).
enum DateConversion {
    /// Days from 1970-01-01 to 2000-01-01.
    static let daysFrom1970To2000: Int32 = 10_957
    /// Microseconds from 1970-01-01 to 2000-01-01 UTC.
    static let microsecondsFrom1970To2000: Int64 = 946_684_800_000_000

    static func localDate(daysSince2000: Int32) -> LocalDate {
        LocalDate(daysSinceEpoch: daysSince2000 + daysFrom1970To2000)
    }

    static func localDate(_ date: PostgresDate) -> LocalDate { localDate(daysSince2000: date.daysSince2000) }

    static func postgresDate(_ date: LocalDate) -> PostgresDate {
        PostgresDate(daysSince2000: date.daysSinceEpoch - daysFrom1970To2000)
    }

    /// A `timestamptz` (µs since 2000 UTC) as a Korea wall-clock minute, or nil when it is not a
    /// whole minute.
    static func koreaMinute(microsecondsSince2000: Int64) -> KoreaMinute? {
        let unixMicroseconds = microsecondsSince2000 + microsecondsFrom1970To2000
        // One division for the quotient and the remainder.
        let (minutes, rest) = unixMicroseconds.quotientAndRemainder(dividingBy: 60_000_000)
        guard rest == 0 else { return nil }
        return KoreaMinute(utcMinutes: minutes)
    }

    /// SQL literal for the instant `date` 00:00 Korea time, built only from the date's integers
    /// (for COPY statements, which take no bind parameters).
    static func koreaMidnightLiteral(_ date: LocalDate) -> String {
        "'\(date.description) 00:00:00+09'::timestamptz"
    }

    /// SQL literal of a date, built from its integers.
    static func dateLiteral(_ date: LocalDate) -> String { "'\(date.description)'::date" }
}
