/// The statutory numbers of the four social insurances (4대보험), employee share, each selected by
/// the **premium month** (보험료 귀속월; calc-api: the month of `periodEnd`). Section numbers refer to
/// `kr-payroll-rules.md`. Every table is read by `SocialInsurance`; nothing else holds a rate.
public enum InsuranceParameters {
    /// The premium months the rule tables cover (calc-api: 2025-01 … 2026-12). Outside → `unsupported`.
    public static let coveredPremiumMonths: Range<LocalDate> = day(2025, 1, 1)..<day(2027, 1, 1)

    // MARK: 국민연금

    /// 국민연금 employee (기여금) rate on the 기준소득월액 (§2.1).
    public static let nationalPensionRate = ParameterTable<Rational>("국민연금 근로자 기여금 요율", [
        EffectiveDated(Rational(45, 1000), from: day(2025, 1, 1), toExclusive: day(2026, 1, 1),
                       source: "§2.1; 국민연금법 §88 (9%, half each)", confidence: .high),
        EffectiveDated(Rational(475, 10000), from: day(2026, 1, 1), toExclusive: day(2027, 1, 1),
                       source: "§2.1; 국민연금법 부칙 <법률 제20903호, 2025.4.2> §4①1 (\"1만분의 475\") [S14][S22]",
                       confidence: .high),
    ])

    /// The 기준소득월액 band (하한, 상한) in 원. It switches every **July**; the rows mirror §2.2.
    public static let nationalPensionBand = ParameterTable<WonBand>("국민연금 기준소득월액 하한·상한", [
        EffectiveDated(WonBand(lowWon: 390_000, highWon: 6_170_000), from: day(2024, 7, 1), toExclusive: day(2025, 7, 1),
                       source: "§2.2 row 2024-07…2025-06 [S17]", confidence: .medium),
        EffectiveDated(WonBand(lowWon: 400_000, highWon: 6_370_000), from: day(2025, 7, 1), toExclusive: day(2026, 1, 1),
                       source: "§2.2; 보건복지부고시 제2025-24호 [S15][S16]", confidence: .high),
        EffectiveDated(WonBand(lowWon: 400_000, highWon: 6_370_000), from: day(2026, 1, 1), toExclusive: day(2026, 7, 1),
                       source: "§2.2; 보건복지부고시 제2025-24호 (with the 2026 9.5% rate) [S16]", confidence: .high),
        EffectiveDated(WonBand(lowWon: 410_000, highWon: 6_590_000), from: day(2026, 7, 1), toExclusive: day(2027, 7, 1),
                       source: "§2.2; 보건복지부고시 제2026-31호 [S15][S16]", confidence: .high),
    ])

    // MARK: 건강보험 and 장기요양

    /// 건강보험 employee rate on the 보수월액 (half of the total rate; §2.1).
    public static let healthRate = ParameterTable<Rational>("건강보험 근로자 보험료율", [
        EffectiveDated(Rational(3545, 100_000), from: day(2025, 1, 1), toExclusive: day(2026, 1, 1),
                       source: "§2.1; 7.09% total, 국민건강보험법 시행령 §44① [S15][S16]", confidence: .high),
        EffectiveDated(Rational(3595, 100_000), from: day(2026, 1, 1), toExclusive: day(2027, 1, 1),
                       source: "§2.1; 7.19% total (\"1만분의 719\"), 국민건강보험법 시행령 §44① [S15][S16]", confidence: .high),
    ])

    /// Limits on the employee's monthly 건강보험료 (the **premium** is clamped, not the 보수월액; §2.2).
    public static let healthPremiumLimits = ParameterTable<WonBand>("건강보험 근로자 월 보험료 하한·상한", [
        EffectiveDated(WonBand(lowWon: 9_890, highWon: 4_504_170), from: day(2025, 1, 1), toExclusive: day(2026, 1, 1),
                       source: "§2.2 (total 19,780 / 9,008,340) [S16]", confidence: .medium),
        EffectiveDated(WonBand(lowWon: 10_080, highWon: 4_591_740), from: day(2026, 1, 1), toExclusive: day(2027, 1, 1),
                       source: "§2.2; 보건복지부고시 제2025-222호 (2025-12-24)", confidence: .high),
    ])

    /// 장기요양보험료 = floor10(건강보험료 × ratio) (§2.3, §2.4).
    public static let longTermCareRatio = ParameterTable<LongTermCareRatio>("장기요양 ÷ 건강보험료 비율", [
        EffectiveDated(.ratesQuotient(longTermCareRate: Rational(9182, 1_000_000), healthRate: Rational(709, 10_000)),
                       from: day(2025, 1, 1), toExclusive: day(2026, 1, 1),
                       source: "§2.4: exact 0.9182%/7.09% = 9182/70900, same statute text as early 2026", confidence: .medium),
        EffectiveDated(.ratesQuotient(longTermCareRate: Rational(9448, 1_000_000), healthRate: Rational(719, 10_000)),
                       from: day(2026, 1, 1), toExclusive: day(2026, 11, 1),
                       source: "§2.4: exact 9448/71900, 노인장기요양보험법 시행령 §4 (대통령령 제35987호); 4insure 5,000,000 → 23,620 [S15][S16]",
                       confidence: .medium),
        // [UNVERIFIED] §2.4: 법률 제21690호 (in force 2026-11-27) rounds the ratio to 4 decimals; per
        // [S16] its 부칙 applies from the premium month containing the 시행일, i.e. November 2026.
        // Whether NHIS billing has switched is unverified; this row implements the spec's choice.
        EffectiveDated(.rounded(Rational(1314, 10_000)), from: day(2026, 11, 1), toExclusive: day(2027, 1, 1),
                       source: "§2.4: 0.1314 from the 2026-11 premium, 법률 제21690호 부칙 [S16] — switch month UNVERIFIED",
                       confidence: .unverified),
    ])

    // MARK: 고용보험

    /// 고용보험 실업급여 employee rate on the monthly 보수 (no cap or floor; §2.1, §2.2).
    public static let employmentRate = ParameterTable<Rational>("고용보험 실업급여 근로자 요율", [
        EffectiveDated(Rational(9, 1000), from: day(2025, 1, 1), toExclusive: day(2027, 1, 1),
                       source: "§2.1; 징수법 §13② (half of 1.8%), unchanged since 2022-07-01 [S15][S16]; 2027 UNVERIFIED",
                       confidence: .high),
    ])
}

/// An inclusive range of 원 amounts: a base band or a premium floor and cap.
public struct WonBand: Sendable, Hashable {
    public let lowWon: Int64
    public let highWon: Int64
    public init(lowWon: Int64, highWon: Int64) {
        precondition(0 <= lowWon && lowWon <= highWon, "band bounds out of order")
        self.lowWon = lowWon
        self.highWon = highWon
    }
}

/// How the 장기요양 premium derives from the 건강보험료 (§2.4).
public enum LongTermCareRatio: Sendable, Hashable {
    /// 장기요양보험료율 ÷ 건강보험료율, exact and unrounded (9448/71900 for 2026-01 … 10).
    case ratesQuotient(longTermCareRate: Rational, healthRate: Rational)
    /// A ratio the statute rounds (0.1314 from 2026-11).
    case rounded(Rational)

    /// The exact multiplier on the 건강보험료.
    public var ratio: Rational {
        switch self {
        case let .ratesQuotient(ltc, health): ltc / health
        case let .rounded(r): r
        }
    }
}
