/// The dates the statutory rule tables of this build cover. Requests outside them are
/// `unsupported` rather than computed with a guessed parameter (calc-api "Defaults and
/// validation"). Widen these when a year's tables are added (insurance rates, bands and caps
/// for a new premium year; a new 간이세액표 version).
public enum RuleCoverage {
    /// First premium month covered: the insurance tables (rules spec §2.1–§2.4) start in 2025-01.
    public static let premiumMonthFirst = day(2025, 1, 1)
    /// Last premium month covered: 2026-12 (2027 rates are not final; rules spec §11).
    public static let premiumMonthLast = day(2026, 12, 1)
    /// First payment date covered: the 간이세액표 개정 2024.2.29 applies from 2024-03-01
    /// (rules spec §3.1); earlier tables are not implemented.
    public static let payDateFirst = day(2024, 3, 1)

    /// `"2025-01 … 2026-12"`, for messages.
    public static var premiumMonthsText: String {
        String(premiumMonthFirst.description.prefix(7)) + " … " + String(premiumMonthLast.description.prefix(7))
    }
}
