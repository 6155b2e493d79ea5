/// The 비과세 items a calc request can carry, with their statutory monthly exemption limits
/// (calc-api rule 11; rules spec §4). Each item is paid in full and added to gross; up to its
/// limit per period is exempt from income tax and from the 4대보험 bases, the rest is taxable.
///
/// The limit is selected by the payment date (the date income tax keys on, rules spec §0.3).
public enum NonTaxableItem: CaseIterable, Sendable {
    /// 식대 (소득세법 §12 제3호, 시행령 §17의2): only when no meals are provided in kind.
    case meals
    /// 자가운전보조금 (소득세법 시행령 §12 제3호).
    case carAllowance
    /// 보육수당 (출산·보육수당, 소득세법 §12 제3호).
    case childcare

    /// `allCases` built once (the batch path iterates the items for every employee).
    static let inOrder: [NonTaxableItem] = allCases

    public var earningCode: EarningCode {
        switch self {
        case .meals: .nonTaxableMeals
        case .carAllowance: .nonTaxableCarAllowance
        case .childcare: .nonTaxableChildcare
        }
    }

    /// How the 임금명세서 names the item.
    public var koreanName: String {
        switch self {
        case .meals: "식대"
        case .carAllowance: "자가운전보조금"
        case .childcare: "보육수당"
        }
    }

    public func amountWon(in items: NonTaxableItems) -> Int64 {
        switch self {
        case .meals: items.mealsWon
        case .carAllowance: items.carAllowanceWon
        case .childcare: items.childcareWon
        }
    }

    /// Monthly exempt amount in 원, by payment date.
    public var exemptLimits: ParameterTable<Int64> {
        switch self {
        case .meals: NonTaxableItem.mealsLimits
        case .carAllowance: NonTaxableItem.carAllowanceLimits
        case .childcare: NonTaxableItem.childcareLimits
        }
    }

    static let mealsLimits = ParameterTable<Int64>("non_taxable.meals.monthly_limit_won", [
        EffectiveDated(200_000, from: day(2023, 1, 1), toExclusive: nil,
                       source: "소득세법 §12 제3호, 시행령 §17의2 (월 20만원 이하의 식사대, from 2023 income); rules spec §4 [S22][S16]; calc-api rule 11",
                       confidence: .medium),
    ])

    static let carAllowanceLimits = ParameterTable<Int64>("non_taxable.car_allowance.monthly_limit_won", [
        // Unchanged for many years; the table starts where this build's coverage starts
        // (`RuleCoverage.payDateFirst` is 2024-03-01).
        EffectiveDated(200_000, from: day(2024, 1, 1), toExclusive: nil,
                       source: "소득세법 시행령 §12 제3호 (자가운전보조금 월 20만원 이내); rules spec §4 [S16]; calc-api rule 11",
                       confidence: .medium),
    ])

    static let childcareLimits = ParameterTable<Int64>("non_taxable.childcare.monthly_limit_won", [
        // [UNVERIFIED] rules spec §4: per 6세 이하 child from 2026-01-01. The request carries no
        // count of such children, so calc-api rule 11 pins one 200,000원 limit per worker.
        EffectiveDated(200_000, from: day(2024, 1, 1), toExclusive: nil,
                       source: "소득세법 §12 제3호 (출산·보육수당 월 20만원, from 2024 income); rules spec §4 [S16]; calc-api rule 11 (per worker)",
                       confidence: .medium),
    ])
}
