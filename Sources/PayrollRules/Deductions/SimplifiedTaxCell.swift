/// One cell of the 간이세액표 from the §5.2 algorithm of `kr-payroll-rules.md`, in exact rational
/// arithmetic (no floating point: many cells land exactly on a 10원 boundary). It reproduces every
/// published cell of 별표 2 (2024.2.29 = 2026.2.27 body). Only `SimplifiedTaxTable` calls it, once
/// per cell; the constants below are the table's internal (frozen) assumptions, not current law.
enum SimplifiedTaxCell {
    /// The cell for bracket midpoint `midpointWon` (M) and family count `family` (n, 1…11).
    static func amountWon(midpointWon: Int64, family: Int, body: SimplifiedTableBody) -> Int64 {
        precondition(midpointWon > 0 && (1...11).contains(family), "cell outside the grid")
        let annualWon = 12 * midpointWon                                   // step 2: G = 12 M
        let g = Rational(annualWon)
        let earned = earnedIncomeDeduction(annualWon)                       // step 3
        let personal = Rational(1_500_000 * Int64(family))                  // step 4
        let pension = Rational(pensionDeductionWon(midpointWon: midpointWon, body: body)) // step 5
        let special = specialDeduction(annualWon, family: family)           // step 6
        var taxBase = g - earned - personal - pension - special             // step 7
        if taxBase < .zero { taxBase = .zero }
        let computed = basicTax(taxBase)                                    // step 8
        let credit = min(creditAmount(computed, body: body), creditLimit(annualWon)) // step 9
        var determined = computed - credit
        if determined < .zero { determined = .zero }
        let monthly = Money.floor10(determined / Rational(12))             // step 10
        return monthly < 1_000 ? 0 : monthly                                // 소액부징수 built into the table
    }

    /// Step 3: 근로소득공제 (소득세법 §47).
    static func earnedIncomeDeduction(_ g: Int64) -> Rational {
        let G = Rational(g)
        if g <= 5_000_000 { return G * Rational(70, 100) }
        if g <= 15_000_000 { return Rational(3_500_000) + (G - Rational(5_000_000)) * Rational(40, 100) }
        if g <= 45_000_000 { return Rational(7_500_000) + (G - Rational(15_000_000)) * Rational(15, 100) }
        if g <= 100_000_000 { return Rational(12_000_000) + (G - Rational(45_000_000)) * Rational(5, 100) }
        return Rational(14_750_000) + (G - Rational(100_000_000)) * Rational(2, 100)
    }

    /// Step 5 (frozen): floor10(clamp(천원 미만 절사 M) × 4.5%) × 12.
    static func pensionDeductionWon(midpointWon: Int64, body: SimplifiedTableBody) -> Int64 {
        let base = min(max(Money.floor1000(midpointWon), body.pensionBase.lowWon), body.pensionBase.highWon)
        return Money.floor10(Rational(base) * body.pensionRate) * 12
    }

    /// Step 6: 특별소득공제 등 (별표 2 note 1), by 총급여 and family count.
    static func specialDeduction(_ g: Int64, family: Int) -> Rational {
        let G = Rational(g)
        let (fixed, lowRate, midRate, highRate): (Int64, Int64, Rational, Rational) =
            switch family {
            case 1: (3_100_000, 4, Rational(15, 1000), Rational(5, 1000))
            case 2: (3_600_000, 4, Rational(2, 100), Rational(1, 100))
            default: (5_000_000, 7, Rational(5, 100), Rational(3, 100))
            }
        var s: Rational
        if g <= 30_000_000 {
            s = Rational(fixed) + G * Rational(lowRate, 100)
        } else if g <= 45_000_000 {
            s = Rational(fixed) + G * Rational(lowRate, 100) - (G - Rational(30_000_000)) * Rational(5, 100)
        } else if g <= 70_000_000 {
            s = Rational(fixed) + G * midRate
        } else {
            s = Rational(fixed) + G * highRate  // G never exceeds 120,000,000 inside the table
        }
        if family >= 3 && g > 40_000_000 { s = s + (G - Rational(40_000_000)) * Rational(4, 100) }
        return s
    }

    /// Step 8: 기본세율 (소득세법 §55, from 2023).
    static func basicTax(_ t: Rational) -> Rational {
        let brackets: [(upTo: Int64?, base: Int64, over: Int64, percent: Int64)] = [
            (14_000_000, 0, 0, 6),
            (50_000_000, 840_000, 14_000_000, 15),
            (88_000_000, 6_240_000, 50_000_000, 24),
            (150_000_000, 15_360_000, 88_000_000, 35),
            (300_000_000, 37_060_000, 150_000_000, 38),
            (500_000_000, 94_060_000, 300_000_000, 40),
            (1_000_000_000, 174_060_000, 500_000_000, 42),
            (nil, 384_060_000, 1_000_000_000, 45),
        ]
        for b in brackets where b.upTo.map({ !(Rational($0) < t) }) ?? true {
            return Rational(b.base) + (t - Rational(b.over)) * Rational(b.percent, 100)
        }
        preconditionFailure("the last bracket is open-ended")
    }

    /// Step 9 (frozen): the older 근로소득세액공제 schedule.
    static func creditAmount(_ c: Rational, body: SimplifiedTableBody) -> Rational {
        let limit = Rational(body.creditFirstLimitWon)
        if !(limit < c) { return c * body.creditFirstRate }
        return limit * body.creditFirstRate + (c - limit) * body.creditSecondRate
    }

    /// Step 9 (frozen): the credit limit by 총급여.
    static func creditLimit(_ g: Int64) -> Rational {
        if g <= 55_000_000 { return Rational(660_000) }
        if g <= 70_000_000 { return max(Rational(630_000), Rational(660_000) - Rational(g - 55_000_000, 2)) }
        return max(Rational(500_000), Rational(630_000) - Rational(g - 70_000_000, 2))
    }
}
