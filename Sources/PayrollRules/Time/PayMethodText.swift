/// The 계산방법 text of earnings lines (rules spec §7, item 5).
///
/// Format, used by every time line:
/// - hours: `120h`, `12h 30m`, `45m`; a 주휴 share of a minute prints one decimal: `3h 20.2m`;
/// - a rate: `10,320원`, or `3,000,000원/209` when the exact hourly rate is not whole;
/// - a line: `<hours> × <rate>` then ` × <multiplier>` unless the multiplier is 1, e.g.
///   `24h × 10,320원 × 0.5`; 주휴 adds the week count: `6h × 4주 × 10,320원`; the monthly salary
///   line prints its proration: `3,000,000원 × 29/30` or `3,000,000원 × (17/30 + 14/31)`.
public enum PayMethodText {
    /// Whole minutes as `Xh`, `Xh Ym` or `Ym`.
    public static func hours(_ minutes: Int64) -> String {
        let h = minutes / 60, m = minutes % 60
        if m == 0 { return String(h) + "h" }
        if h == 0 { return String(m) + "m" }
        return String(h) + "h " + String(m) + "m"
    }

    /// Fifths of a minute (the 주휴 unit: weekly 소정 / 5), exact.
    public static func hours(fifthsOfMinute f: Int64) -> String {
        if f % 5 == 0 { return hours(f / 5) }
        let whole = f / 5, tenths = (f % 5) * 2
        let h = whole / 60, m = whole % 60
        let minutesText = String(m) + "." + String(tenths) + "m"
        return h == 0 ? minutesText : String(h) + "h " + minutesText
    }

    /// `10,320원` or `3,000,000원/209`.
    public static func rate(_ r: Rational) -> String {
        r.isInteger ? Money.grouped(r.numerator) + "원" : Money.grouped(r.numerator) + "원/" + String(r.denominator)
    }

    /// `"1"`, `"0.5"`, `"1.5"`, … for a multiplier in halves.
    public static func multiplier(halves: Int64) -> String {
        halves % 2 == 0 ? String(halves / 2) : String(halves / 2) + ".5"
    }

    static func line(minutes: Int64, rateText: String, multiplierHalves: Int64) -> String {
        let base = hours(minutes) + " × " + rateText
        return multiplierHalves == 2 ? base : base + " × " + multiplier(halves: multiplierHalves)
    }
}
