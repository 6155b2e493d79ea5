/// Parsing of the calc API's timestamps: ISO-8601 / RFC 3339 date-times with an explicit offset
/// and whole minutes, converted to Korea wall-clock minutes.
///
/// Accepted: `YYYY-MM-DDTHH:MM:SS±HH:MM` and `YYYY-MM-DDTHH:MM:SSZ` (`Z` is UTC, converted to Korea
/// time), with seconds exactly `00`; also `YYYY-MM-DDTHH:MM±HH:MM` without seconds. Rejected:
/// no offset (a local time is ambiguous), non-zero or fractional seconds, hour 24, offsets beyond
/// ±18:00.
public enum ISOTime {
    public enum Failure: Error, Sendable {
        case malformed
        case noOffset
        case nonZeroSeconds
    }

    public static func koreaMinute(_ text: String) -> Result<KoreaMinute, Failure> {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    private static func parse(_ u: UnsafeBufferPointer<UInt8>) -> Result<KoreaMinute, Failure> {
        // Date part and 'T'.
        guard u.count >= 16, u[10] == UInt8(ascii: "T") || u[10] == UInt8(ascii: "t"),
              let c = twoDigits(u, 0), let y = twoDigits(u, 2), u[4] == UInt8(ascii: "-"),
              let month = twoDigits(u, 5), u[7] == UInt8(ascii: "-"), let d = twoDigits(u, 8),
              let date = LocalDate(year: c * 100 + y, month: month, day: d),
              let hour = twoDigits(u, 11), u[13] == UInt8(ascii: ":"), let minute = twoDigits(u, 14),
              hour < 24, minute < 60
        else { return .failure(.malformed) }
        var i = 16
        if i < u.count, u[i] == UInt8(ascii: ":") {
            guard let seconds = twoDigits(u, i + 1) else { return .failure(.malformed) }
            i += 3
            if i < u.count, u[i] == UInt8(ascii: ".") { return .failure(.nonZeroSeconds) }
            guard seconds == 0 else { return seconds < 60 ? .failure(.nonZeroSeconds) : .failure(.malformed) }
        }
        guard i < u.count else { return .failure(.noOffset) }
        let offsetMinutes: Int
        switch u[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard i + 1 == u.count else { return .failure(.malformed) }
            offsetMinutes = 0
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard i + 6 == u.count, let oh = twoDigits(u, i + 1), u[i + 3] == UInt8(ascii: ":"),
                  let om = twoDigits(u, i + 4), oh <= 18, om < 60
            else { return .failure(.malformed) }
            offsetMinutes = (u[i] == UInt8(ascii: "-") ? -1 : 1) * (oh * 60 + om)
        default:
            return .failure(.malformed)
        }
        let local = Int64(date.daysSinceEpoch) * 1440 + Int64(hour * 60 + minute)
        return .success(KoreaMinute(utcMinutes: local - Int64(offsetMinutes)))
    }

    private static func twoDigits(_ u: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
        guard i + 1 < u.count else { return nil }
        let a = u[i], b = u[i + 1]
        guard a >= 48, a <= 57, b >= 48, b <= 57 else { return nil }
        return Int(a - 48) * 10 + Int(b - 48)
    }
}
