/// The employee shares of the 4대보험 (§2.3 of `kr-payroll-rules.md`, calc-api rule 12), one line
/// each with its base and 계산방법. A scheme's base is the declared base when given, else this
/// period's taxable pay (an estimate, said in the `method`). A base of 0 gives 0 with no floor.
public enum SocialInsurance {
    /// 국민연금 기여금: floor10(clamp(천원 미만 절사 base, band) × rate). `base` of the line is the
    /// 기준소득월액 after truncation and clamping.
    public static func nationalPension(declaredBaseWon: Int64?, taxableWon: Int64,
                                       premiumMonth: LocalDate) throws(PayrollError) -> DeductionLine {
        let rate = try parameter(InsuranceParameters.nationalPensionRate, premiumMonth)
        let band = try parameter(InsuranceParameters.nationalPensionBand, premiumMonth)
        let reportedWon = declaredBaseWon ?? taxableWon
        guard reportedWon > 0 else {
            return DeductionLine(code: .nationalPension, base: 0, amount: 0,
                                 method: "0원 (기준소득월액 0원" + origin(declaredBaseWon, taxableWon) + ")")
        }
        let truncatedWon = Money.floor1000(reportedWon)
        let baseWon = min(max(truncatedWon, band.lowWon), band.highWon)
        let amountWon = Money.floor10(floorProduct(baseWon, rate))
        var method = Money.grouped(baseWon) + "원 × " + RateText.percent(rate) + " (기준소득월액"
        if truncatedWon > band.highWon {
            method += ", 상한 " + Money.grouped(band.highWon) + "원 적용"
        } else if truncatedWon < band.lowWon {
            method += ", 하한 " + Money.grouped(band.lowWon) + "원 적용"
        } else {
            method += ", 천원 미만 절사"
        }
        method += ", 10원 미만 절사" + origin(declaredBaseWon, taxableWon) + ")"
        return DeductionLine(code: .nationalPension, base: baseWon, amount: amountWon, method: method)
    }

    /// 건강보험료: clamp(floor10(보수월액 × rate), premium floor, premium cap) — the premium is
    /// clamped, not the 보수월액 (§2.2).
    public static func health(declaredBaseWon: Int64?, taxableWon: Int64,
                              premiumMonth: LocalDate) throws(PayrollError) -> DeductionLine {
        let rate = try parameter(InsuranceParameters.healthRate, premiumMonth)
        let limits = try parameter(InsuranceParameters.healthPremiumLimits, premiumMonth)
        let baseWon = declaredBaseWon ?? taxableWon
        guard baseWon > 0 else {
            return DeductionLine(code: .healthInsurance, base: 0, amount: 0,
                                 method: "0원 (보수월액 0원" + origin(declaredBaseWon, taxableWon) + ")")
        }
        let rawWon = Money.floor10(floorProduct(baseWon, rate))
        let amountWon = min(max(rawWon, limits.lowWon), limits.highWon)
        var method = Money.grouped(baseWon) + "원 × " + RateText.percent(rate)
        if rawWon > limits.highWon {
            method += " = " + Money.grouped(rawWon) + "원 → 상한 " + Money.grouped(limits.highWon) + "원"
        } else if rawWon < limits.lowWon {
            method += " = " + Money.grouped(rawWon) + "원 → 하한 " + Money.grouped(limits.lowWon) + "원"
        }
        method += " (보수월액, 10원 미만 절사" + origin(declaredBaseWon, taxableWon) + ")"
        return DeductionLine(code: .healthInsurance, base: baseWon, amount: amountWon, method: method)
    }

    /// 장기요양보험료: floor10(건강보험료 × ratio) (§2.3, §2.4); its base is the 건강보험료.
    public static func longTermCare(healthPremiumWon: Int64, premiumMonth: LocalDate) throws(PayrollError) -> DeductionLine {
        let ratio = try parameter(InsuranceParameters.longTermCareRatio, premiumMonth)
        let amountWon = healthPremiumWon > 0 ? Money.floor10(floorProduct(healthPremiumWon, ratio.ratio)) : 0
        let method: String
        switch ratio {
        case let .ratesQuotient(ltcRate, healthRate):
            method = Money.grouped(healthPremiumWon) + "원 × " + RateText.percent(ltcRate) + " ÷ "
                + RateText.percent(healthRate) + " (건강보험료 × 장기요양보험료율 ÷ 건강보험료율, 10원 미만 절사)"
        case let .rounded(r):
            method = Money.grouped(healthPremiumWon) + "원 × " + RateText.decimal(r)
                + " (건강보험료 × 장기요양보험료율 비율, 10원 미만 절사)"
        }
        return DeductionLine(code: .longTermCare, base: healthPremiumWon, amount: amountWon, method: method)
    }

    /// 고용보험 실업급여 보험료: floor10(보수 × rate), no cap or floor.
    public static func employment(declaredBaseWon: Int64?, taxableWon: Int64,
                                  premiumMonth: LocalDate) throws(PayrollError) -> DeductionLine {
        let rate = try parameter(InsuranceParameters.employmentRate, premiumMonth)
        let baseWon = max(declaredBaseWon ?? taxableWon, 0)
        let amountWon = Money.floor10(floorProduct(baseWon, rate))
        let method = Money.grouped(baseWon) + "원 × " + RateText.percent(rate)
            + " (보수, 10원 미만 절사" + origin(declaredBaseWon, taxableWon) + ")"
        return DeductionLine(code: .employmentInsurance, base: baseWon, amount: amountWon, method: method)
    }

    /// Where a base came from, for the method text.
    static func origin(_ declaredBaseWon: Int64?, _ taxableWon: Int64) -> String {
        declaredBaseWon == nil ? "; 신고 기준 없어 이번 기간 과세급여 " + Money.grouped(taxableWon) + "원으로 추정" : "; 신고 기준"
    }

    /// The premium-month version of an insurance parameter, or `unsupported` naming `periodEnd`.
    static func parameter<V>(_ table: ParameterTable<V>, _ premiumMonth: LocalDate) throws(PayrollError) -> V {
        guard let value = table.value(on: premiumMonth) else {
            throw PayrollError(.unsupported, "no " + table.name + " for premium month "
                               + String(premiumMonth.description.prefix(7)), field: "periodEnd")
        }
        return value
    }
}

/// ⌊x × r⌋ for 0 ≤ x ≤ `DeductionCalculator.amountWonMax` and 0 ≤ r ≤ 1 (a statutory rate), in
/// `Int64` (the bound keeps x × numerator far below 2⁶³ for every rate in the tables).
@inline(__always) func floorProduct(_ x: Int64, _ r: Rational) -> Int64 {
    assert(x >= 0 && x <= DeductionCalculator.amountWonMax && r.numerator <= 1 << 20, "floorProduct bounds")
    return x * r.numerator / r.denominator
}
