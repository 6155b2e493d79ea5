/// The statutory numbers of income-tax withholding, each selected by the **payment (withholding)
/// date** (§0.3, §3.1 of `kr-payroll-rules.md`). Read by `IncomeTax` and `SimplifiedTaxTable`.
public enum WithholdingParameters {
    /// Payment dates before this are not covered by any table here (calc-api) → `unsupported`.
    public static let firstCoveredPaymentDate: LocalDate = day(2024, 3, 1)

    /// The 원천징수 비율 an employee may choose (소득세법 시행령 §194①; §3.2), percent.
    public static let withholdingRatiosPercent: [Int] = [80, 100, 120]

    /// The body of 소득세법 시행령 별표 2 (the grid, the >10,000천원 formula, the >11 family rule).
    /// The 2026.2.27 revision left it byte-identical to 2024.2.29 (§3.1), so one version.
    public static let simplifiedTableBody = ParameterTable<SimplifiedTableBody>("근로소득 간이세액표 본표", [
        EffectiveDated(.frozen2024, from: day(2024, 3, 1), toExclusive: nil,
                       source: "§3.1, §5; 별표 2 개정 2024.2.29 (대통령령 제34265호), body unchanged by 개정 2026.2.27 (제36129호) [S20][S21]",
                       confidence: .high),
    ])

    /// 별표 2 note 3: the monthly deduction for 8–20세 자녀 (§3.1, §5.5), by payment date.
    public static let childDeduction = ParameterTable<ChildDeductionAmounts>("간이세액표 주3 자녀 공제액", [
        EffectiveDated(ChildDeductionAmounts(oneChildWon: 12_500, twoChildrenWon: 29_160, eachFurtherChildWon: 25_000),
                       from: day(2024, 3, 1), toExclusive: day(2026, 3, 1),
                       source: "§3.1; 별표 2 주3, 개정 2024.2.29 (대통령령 제34265호)", confidence: .high),
        EffectiveDated(ChildDeductionAmounts(oneChildWon: 20_830, twoChildrenWon: 45_830, eachFurtherChildWon: 33_330),
                       from: day(2026, 3, 1), toExclusive: nil,
                       source: "§3.1; 별표 2 주3, 개정 2026.2.27 (대통령령 제36129호; one source prints 제36127호)",
                       confidence: .high),
    ])

    /// 소득세법 §86 제1호 소액부징수: a withholding under this amount is not collected (§5.5, §6.1).
    public static let smallAmountThreshold = ParameterTable<Int64>("소액부징수 기준금액", [
        EffectiveDated(1_000, from: day(2024, 3, 1), toExclusive: nil, source: "§5.5; 소득세법 §86 제1호", confidence: .high),
    ])

    /// 개인지방소득세 특별징수: this fraction of the income tax withheld, floored to 10원 (§5.5).
    public static let localIncomeTaxRate = ParameterTable<Rational>("지방소득세 특별징수 비율", [
        EffectiveDated(Rational(1, 10), from: day(2024, 3, 1), toExclusive: nil,
                       source: "§5.5; 지방세법 §103의13① [H]; 10원 floor [M]", confidence: .high),
    ])

    /// 일용근로소득 withholding per day (§6.1).
    public static let dailyWorker = ParameterTable<DailyWorkerWithholding>("일용근로소득 원천징수", [
        EffectiveDated(DailyWorkerWithholding(dailyDeductionWon: 150_000, rate: Rational(27, 1000)),
                       from: day(2024, 3, 1), toExclusive: nil,
                       source: "§6.1: 150,000/day 근로소득공제 (since 2019) × 6% × (1 − 55%) = 2.7% [S27]",
                       confidence: .medium),
    ])

    /// 사업소득 (인적용역) withholding, the "3.3%" (§6.2).
    public static let businessIncome = ParameterTable<BusinessIncomeWithholding>("사업소득 원천징수 (3%)", [
        EffectiveDated(BusinessIncomeWithholding(rate: Rational(3, 100), smallAmountExemptionApplies: true),
                       from: day(2024, 3, 1), toExclusive: day(2024, 7, 1),
                       source: "§6.2; 소득세법 §129①3, §86 before its 2024-07-01 인적용역 exclusion", confidence: .medium),
        EffectiveDated(BusinessIncomeWithholding(rate: Rational(3, 100), smallAmountExemptionApplies: false),
                       from: day(2024, 7, 1), toExclusive: nil,
                       source: "§6.2; 소득세법 §129①3; §86 제1호 exclusion, 시행령 §149의3 [S28][S25]", confidence: .medium),
    ])
}

/// 별표 2 note 3 amounts (원 per month).
public struct ChildDeductionAmounts: Sendable, Hashable {
    public let oneChildWon: Int64
    public let twoChildrenWon: Int64
    /// Added per child beyond the second.
    public let eachFurtherChildWon: Int64

    /// The full note-3 amount for `children` 8–20세 children (0 for none).
    public func amountWon(children: Int) -> Int64 {
        switch children {
        case ...0: 0
        case 1: oneChildWon
        default: twoChildrenWon + Int64(children - 2) * eachFurtherChildWon
        }
    }
}

/// §6.1: tax per day = (day's pay − deduction) × rate, when positive.
public struct DailyWorkerWithholding: Sendable, Hashable {
    public let dailyDeductionWon: Int64
    public let rate: Rational
}

/// §6.2: floor10(pay × rate); whether 소액부징수 applies depends on the payment date.
public struct BusinessIncomeWithholding: Sendable, Hashable {
    public let rate: Rational
    public let smallAmountExemptionApplies: Bool
}

/// The parameters that generate one version of the 간이세액표 (§5.2–§5.4). They are the table's own
/// **frozen** assumptions, not current law: do not update them to the year's pension rate or
/// 근로소득세액공제 (§5.1, §10 pitfall 1).
public struct SimplifiedTableBody: Sendable, Hashable {
    /// Frozen pension rate of step 5 (4.5%).
    public let pensionRate: Rational
    /// Frozen pension base band of step 5 (290,000 … 4,490,000, the 2017.7–2018.6 band).
    public let pensionBase: WonBand
    /// Older 근로소득세액공제 schedule of step 9: `firstRate` up to `firstLimitWon` of 산출세액, then
    /// `firstRate × firstLimitWon + secondRate × excess`.
    public let creditFirstRate: Rational
    public let creditFirstLimitWon: Int64
    public let creditSecondRate: Rational
    /// The row the >10,000천원 formula starts from (10,000,000원).
    public let topRowWon: Int64
    /// §5.3 brackets above `topRowWon`, ascending.
    public let overTopBrackets: [OverTopBracket]

    public static let frozen2024 = SimplifiedTableBody(
        pensionRate: Rational(45, 1000),
        pensionBase: WonBand(lowWon: 290_000, highWon: 4_490_000),
        creditFirstRate: Rational(55, 100), creditFirstLimitWon: 500_000, creditSecondRate: Rational(30, 100),
        topRowWon: 10_000_000,
        overTopBrackets: [
            OverTopBracket(upToWon: 14_000_000, fromWon: 10_000_000, addedWon: 25_000, rate: Rational(98 * 35, 10_000)),
            OverTopBracket(upToWon: 28_000_000, fromWon: 14_000_000, addedWon: 1_397_000, rate: Rational(98 * 38, 10_000)),
            OverTopBracket(upToWon: 30_000_000, fromWon: 28_000_000, addedWon: 6_610_600, rate: Rational(98 * 40, 10_000)),
            OverTopBracket(upToWon: 45_000_000, fromWon: 30_000_000, addedWon: 7_394_600, rate: Rational(40, 100)),
            OverTopBracket(upToWon: 87_000_000, fromWon: 45_000_000, addedWon: 13_394_600, rate: Rational(42, 100)),
            OverTopBracket(upToWon: nil, fromWon: 87_000_000, addedWon: 31_034_600, rate: Rational(45, 100)),
        ])
}

/// One line of the §5.3 table: for pay ≤ `upToWon`, T10 + `addedWon` + (pay − `fromWon`) × `rate`.
public struct OverTopBracket: Sendable, Hashable {
    /// Inclusive upper end; nil = no upper end.
    public let upToWon: Int64?
    public let fromWon: Int64
    public let addedWon: Int64
    public let rate: Rational
}
