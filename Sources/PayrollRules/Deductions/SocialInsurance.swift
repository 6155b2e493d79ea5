/// The employee shares of the 4대보험 (§2.3 of `kr-payroll-rules.md`, calc-api rule 12), one line
/// each with its base and 계산방법. A scheme's base is the declared base when given, else this
/// period's taxable pay (an estimate, said in the `method`). A base of 0 gives 0 with no floor.
/// Bases must be 0 … `DeductionCalculator.amountWonMax` (`DeductionCalculator` checks them).
public enum SocialInsurance {
    /// 국민연금 기여금: floor10(clamp(천원 미만 절사 base, band) × rate). The line's `base` is the
    /// 기준소득월액 after truncation and clamping.
    public static func nationalPension(declaredBaseWon: Int64?, taxableWon: Int64,
                                       premiumMonth: LocalDate) throws(PayrollError) -> DeductionLine {
        try checkBases(declaredBaseWon, taxableWon)
        let s = try InsuranceSchedule.resolve(premiumMonth)
        return MethodTextBlock.line { nationalPension(declaredBaseWon, taxableWon, s, &$0) }
    }

    /// 건강보험료: clamp(floor10(보수월액 × rate), premium floor, premium cap) — the premium is
    /// clamped, not the 보수월액 (§2.2).
    public static func health(declaredBaseWon: Int64?, taxableWon: Int64,
                              premiumMonth: LocalDate) throws(PayrollError) -> DeductionLine {
        try checkBases(declaredBaseWon, taxableWon)
        let s = try InsuranceSchedule.resolve(premiumMonth)
        return MethodTextBlock.line { health(declaredBaseWon, taxableWon, s, &$0) }
    }

    /// 장기요양보험료: floor10(건강보험료 × ratio) (§2.3, §2.4); its base is the 건강보험료.
    public static func longTermCare(healthPremiumWon: Int64, premiumMonth: LocalDate) throws(PayrollError) -> DeductionLine {
        try checkBases(nil, healthPremiumWon)
        let s = try InsuranceSchedule.resolve(premiumMonth)
        return MethodTextBlock.line { longTermCare(healthPremiumWon, s, &$0) }
    }

    /// 고용보험 실업급여 보험료: floor10(보수 × rate), no cap or floor.
    public static func employment(declaredBaseWon: Int64?, taxableWon: Int64,
                                  premiumMonth: LocalDate) throws(PayrollError) -> DeductionLine {
        try checkBases(declaredBaseWon, taxableWon)
        let s = try InsuranceSchedule.resolve(premiumMonth)
        return MethodTextBlock.line { employment(declaredBaseWon, taxableWon, s, &$0) }
    }

    static func checkBases(_ declaredBaseWon: Int64?, _ taxableWon: Int64) throws(PayrollError) {
        try DeductionCalculator.checkAmount(taxableWon, "taxable")
        if let declaredBaseWon { try DeductionCalculator.checkAmount(declaredBaseWon, "insuranceBase") }
    }

    // MARK: With a resolved schedule (the batch path), texts into the payslip's block

    static func nationalPension(_ declaredBaseWon: Int64?, _ taxableWon: Int64, _ s: InsuranceSchedule,
                                _ texts: inout MethodTextBlock) -> DeductionLine {
        let reportedWon = declaredBaseWon ?? taxableWon
        guard reportedWon > 0 else {
            return DeductionLine(code: .nationalPension, base: 0, amount: 0, methodText: texts.text { text in
                text.add("0원 (기준소득월액 0원")
                origin(&text, declaredBaseWon, taxableWon)
            })
        }
        let truncatedWon = Money.floor1000(reportedWon)
        let band = s.pensionBand
        let baseWon = min(max(truncatedWon, band.lowWon), band.highWon)
        let amountWon = Money.floor10(floorProduct(baseWon, s.pensionRate))
        let method = texts.text { text in
            text.won(baseWon)
            text.add("원 × ")
            text.add(s.pensionRatePrinted)
            text.add(" (기준소득월액")
            if truncatedWon > band.highWon {
                text.add(", 상한 ")
                text.won(band.highWon)
                text.add("원 적용")
            } else if truncatedWon < band.lowWon {
                text.add(", 하한 ")
                text.won(band.lowWon)
                text.add("원 적용")
            } else {
                text.add(", 천원 미만 절사")
            }
            text.add(", 10원 미만 절사")
            origin(&text, declaredBaseWon, taxableWon, naming: true)
        }
        return DeductionLine(code: .nationalPension, base: baseWon, amount: amountWon, methodText: method)
    }

    static func health(_ declaredBaseWon: Int64?, _ taxableWon: Int64, _ s: InsuranceSchedule,
                                _ texts: inout MethodTextBlock) -> DeductionLine {
        let baseWon = declaredBaseWon ?? taxableWon
        guard baseWon > 0 else {
            return DeductionLine(code: .healthInsurance, base: 0, amount: 0, methodText: texts.text { text in
                text.add("0원 (보수월액 0원")
                origin(&text, declaredBaseWon, taxableWon)
            })
        }
        let rawWon = Money.floor10(floorProduct(baseWon, s.healthRate))
        let amountWon = min(max(rawWon, s.healthLimits.lowWon), s.healthLimits.highWon)
        let method = texts.text { text in
            text.won(baseWon)
            text.add("원 × ")
            text.add(s.healthRatePrinted)
            if rawWon != amountWon {
                text.add(" = ")
                text.won(rawWon)
                text.add(rawWon > amountWon ? "원 → 상한 " : "원 → 하한 ")
                text.won(amountWon)
                text.add("원")
            }
            text.add(" (보수월액, 10원 미만 절사")
            origin(&text, declaredBaseWon, taxableWon)
        }
        return DeductionLine(code: .healthInsurance, base: baseWon, amount: amountWon, methodText: method)
    }

    static func longTermCare(_ healthPremiumWon: Int64, _ s: InsuranceSchedule,
                                _ texts: inout MethodTextBlock) -> DeductionLine {
        let amountWon = healthPremiumWon > 0 ? Money.floor10(floorProduct(healthPremiumWon, s.longTermCareRatio)) : 0
        let method = texts.text { text in
            text.won(healthPremiumWon)
            text.add("원 × ")
            text.add(s.longTermCareRatioPrinted)
            text.add(" (건강보험료 × 장기요양 비율, 10원 미만 절사)")
        }
        return DeductionLine(code: .longTermCare, base: healthPremiumWon, amount: amountWon, methodText: method)
    }

    static func employment(_ declaredBaseWon: Int64?, _ taxableWon: Int64, _ s: InsuranceSchedule,
                                _ texts: inout MethodTextBlock) -> DeductionLine {
        let baseWon = max(declaredBaseWon ?? taxableWon, 0)
        let amountWon = Money.floor10(floorProduct(baseWon, s.employmentRate))
        let method = texts.text { text in
            text.won(baseWon)
            text.add("원 × ")
            text.add(s.employmentRatePrinted)
            text.add(" (보수, 10원 미만 절사")
            origin(&text, declaredBaseWon, taxableWon)
        }
        return DeductionLine(code: .employmentInsurance, base: baseWon, amount: amountWon, methodText: method)
    }

    /// Where the base came from, and the closing parenthesis. Pension names the taxable pay it
    /// truncated; for the other schemes the printed base is the taxable pay itself.
    static func origin(_ text: inout MethodText, _ declaredBaseWon: Int64?, _ taxableWon: Int64, naming: Bool = false) {
        if declaredBaseWon != nil {
            text.add("; 신고 기준)")
        } else if naming {
            text.add("; 과세급여 ")
            text.won(taxableWon)
            text.add("원으로 추정)")
        } else {
            text.add("; 과세급여로 추정)")
        }
    }
}

/// ⌊x × r⌋ for 0 ≤ x ≤ `DeductionCalculator.amountWonMax` and 0 ≤ r ≤ 1 (a statutory rate), in
/// `Int64` (the bound keeps x × numerator far below 2⁶³ for every rate in the tables).
@inline(__always) func floorProduct(_ x: Int64, _ r: Rational) -> Int64 {
    assert(x >= 0 && x <= DeductionCalculator.amountWonMax && r.numerator <= 1 << 20, "floorProduct bounds")
    return x * r.numerator / r.denominator
}
