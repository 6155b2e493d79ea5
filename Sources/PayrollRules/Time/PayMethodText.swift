/// The 계산방법 text of earnings lines (rules spec §7, item 5).
///
/// Format, used by every time line:
/// - hours: `120h`, `12h 30m`, `45m`; a 주휴 share of a minute prints one decimal: `3h 20.2m`;
/// - a rate: `10,320원`, or `3,000,000원/209` when the exact hourly rate is not whole;
/// - a line: `<hours> × <rate>` then ` × <multiplier>` unless the multiplier is 1, e.g.
///   `24h × 10,320원 × 0.5`; 주휴 adds the week count: `6h × 4주 × 10,320원`; the monthly salary
///   line prints its proration: `3,000,000원 × 29/30` or `3,000,000원 × (17/30 + 14/31)`.
public enum PayMethodText {
    // The formats are written by the `MethodText` extension in `MethodText+Time.swift`; these
    // return them as `String`s.

    /// Whole minutes as `Xh`, `Xh Ym` or `Ym`.
    public static func hours(_ minutes: Int64) -> String {
        MethodText.make { $0.hours(minutes) }
    }

    /// Fifths of a minute (the 주휴 unit: weekly 소정 / 5), exact.
    public static func hours(fifthsOfMinute f: Int64) -> String {
        MethodText.make { $0.hours(fifthsOfMinute: f) }
    }

    /// `10,320원` or `3,000,000원/209`.
    public static func rate(_ r: Rational) -> String {
        MethodText.make { $0.rate(r) }
    }

    /// `"1"`, `"0.5"`, `"1.5"`, … for a multiplier in halves.
    public static func multiplier(halves: Int64) -> String {
        switch halves {  // the statutory multipliers as literals (no formatting on the batch path)
        case 1: return "0.5"
        case 2: return "1"
        case 3: return "1.5"
        case 4: return "2"
        default: return halves % 2 == 0 ? String(halves / 2) : String(halves / 2) + ".5"
        }
    }

    static func line(minutes: Int64, rate: Rational, multiplierHalves: Int64) -> String {
        MethodText.make { $0.line(minutes: minutes, rate: rate, multiplierHalves: multiplierHalves) }
    }
}
