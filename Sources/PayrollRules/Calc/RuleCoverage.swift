/// The dates the statutory rule tables of this build cover, as the calc path checks them before
/// computing: requests outside them are `unsupported` rather than computed with a guessed parameter
/// (calc-api "Defaults and validation"). Derived from the parameter tables themselves, so adding a
/// year's tables widens the accepted dates with no change here.
public enum RuleCoverage {
    /// First premium month covered (today 2025-01; `InsuranceParameters.coveredPremiumMonths`).
    public static let premiumMonthFirst = InsuranceParameters.coveredPremiumMonths.lowerBound.firstOfMonth
    /// Last premium month covered (today 2026-12).
    public static let premiumMonthLast = InsuranceParameters.coveredPremiumMonths.upperBound.adding(days: -1).firstOfMonth
    /// Last day of the last premium month covered (today 2026-12-31): `periodEnd` has a covered
    /// premium month exactly when it lies in `premiumMonthFirst … premiumMonthsLastDay`.
    static let premiumMonthsLastDay = premiumMonthLast.adding(
        days: LocalDate.daysInMonth(year: premiumMonthLast.year, month: premiumMonthLast.month) - 1)
    /// First payment date covered (today 2024-03-01, the 간이세액표 개정 2024.2.29;
    /// `WithholdingParameters.firstCoveredPaymentDate`).
    public static let payDateFirst = WithholdingParameters.firstCoveredPaymentDate

    /// `"2025-01 … 2026-12"`, for messages.
    public static var premiumMonthsText: String {
        String(premiumMonthFirst.description.prefix(7)) + " … " + String(premiumMonthLast.description.prefix(7))
    }
}
