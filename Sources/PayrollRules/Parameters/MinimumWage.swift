/// 최저임금 (최저임금법), hourly, selected by the date the work is performed (rules spec §0.3,
/// §1.5). One rate for every industry since 2017.
public enum MinimumWage {
    public static let hourlyWon = ParameterTable<Int64>("minimum_wage_hourly", [
        EffectiveDated(9_860, from: day(2024, 1, 1), toExclusive: day(2025, 1, 1),
                       source: "rules spec §1.5 [S11]: 2024 최저임금 9,860원", confidence: .high),
        EffectiveDated(10_030, from: day(2025, 1, 1), toExclusive: day(2026, 1, 1),
                       source: "rules spec §1.5 [S11][S12]: 2025 최저임금 10,030원 (고시 number [UNVERIFIED], value certain)",
                       confidence: .high),
        EffectiveDated(10_320, from: day(2026, 1, 1), toExclusive: day(2027, 1, 1),
                       source: "rules spec §1.5: 고용노동부고시 제2025-47호 (2025-08-05), 10,320원 [S11][S13][S3]",
                       confidence: .high),
        EffectiveDated(10_700, from: day(2027, 1, 1), toExclusive: day(2028, 1, 1),
                       source: "rules spec §1.5/§11: 고용노동부고시 제2026-60호 (2026-08-05), 10,700원 [S3]",
                       confidence: .high),
    ])
}
