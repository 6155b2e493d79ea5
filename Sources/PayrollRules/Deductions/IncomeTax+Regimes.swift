/// Income tax and 지방소득세 withheld under one regime (without the 간이세액표 details).
public struct TaxWithheld: Sendable, Hashable {
    public var incomeTaxWon: Int64
    public var localIncomeTaxWon: Int64
    public init(incomeTaxWon: Int64, localIncomeTaxWon: Int64) {
        self.incomeTaxWon = incomeTaxWon
        self.localIncomeTaxWon = localIncomeTaxWon
    }
}

extension IncomeTax {
    /// Largest 공제대상가족 수 accepted (a limit on input, far above any real family).
    public static let familyMax = 99

    /// 사업소득 3.3%: floor10(pay × 3%) with no 소액부징수 for payments from 2024-07-01 (§6.2),
    /// and 지방소득세 floor10(10%).
    public static func business33(payWon: Int64, payDate: LocalDate) throws(PayrollError) -> TaxWithheld {
        try DeductionCalculator.checkAmount(payWon, "taxable")
        return business33(payWon: payWon, schedule: try WithholdingSchedule.resolve(payDate))
    }

    /// 일용근로소득 (calc-api rule 13, §6.1): Σ over dates of (that day's exact pay − 150,000) × 2.7%
    /// when positive, floor10 of the sum, 0 when under 1,000 (소액부징수 per payment); 지방소득세
    /// floor10(10%). Entries are in date order; several entries of one date count as one day.
    public static func daily(payByDate: [DatedAmount], payDate: LocalDate) throws(PayrollError) -> TaxWithheld {
        try checkDailyPay(payByDate)
        return dailyDetail(payByDate: payByDate, schedule: try WithholdingSchedule.resolve(payDate)).withheld
    }

    /// Each day's pay must be 0 … `DeductionCalculator.amountWonMax` (keeps the exact sum in range).
    static func checkDailyPay(_ payByDate: [DatedAmount]) throws(PayrollError) {
        let max = Rational(DeductionCalculator.amountWonMax)
        for entry in payByDate where entry.amount < .zero || max < entry.amount {
            throw PayrollError(.invalidValue, "pay of " + entry.date.description + " is outside 0 … "
                               + Money.grouped(DeductionCalculator.amountWonMax) + "원", field: "payByDate")
        }
    }

    // MARK: With a resolved schedule (the batch path)

    static func business33(payWon: Int64, schedule s: WithholdingSchedule) -> TaxWithheld {
        var tax = Money.floor10(floorProduct(payWon, s.business.rate))
        if s.business.smallAmountExemptionApplies && tax < s.smallAmountThresholdWon { tax = 0 }
        return TaxWithheld(incomeTaxWon: tax, localIncomeTaxWon: localTax(tax, s))
    }

    struct DailyDetail {
        var withheld: TaxWithheld
        /// floor10 of the summed per-day tax, before 소액부징수.
        var beforeSmallAmountWon: Int64
        var taxedDays: Int
        var days: Int
    }

    static func dailyDetail(payByDate: [DatedAmount], schedule s: WithholdingSchedule) -> DailyDetail {
        let deduction = Rational(s.daily.dailyDeductionWon)
        var excessSum = Rational.zero
        var days = 0, taxedDays = 0
        var i = 0
        while i < payByDate.count {
            // One day: every entry of this date.
            let date = payByDate[i].date
            var dayPay = Rational.zero
            while i < payByDate.count && payByDate[i].date == date {
                dayPay = dayPay + payByDate[i].amount
                i += 1
            }
            days += 1
            if deduction < dayPay {
                excessSum = excessSum + (dayPay - deduction)
                taxedDays += 1
            }
        }
        let beforeSmallAmount = Money.floor10(excessSum * s.daily.rate)
        let tax = beforeSmallAmount < s.smallAmountThresholdWon ? 0 : beforeSmallAmount
        return DailyDetail(withheld: TaxWithheld(incomeTaxWon: tax, localIncomeTaxWon: localTax(tax, s)),
                           beforeSmallAmountWon: beforeSmallAmount, taxedDays: taxedDays, days: days)
    }

    /// 지방소득세 특별징수: floor10(income tax × 10%) (§5.5).
    @inline(__always) static func localTax(_ incomeTaxWon: Int64, _ s: WithholdingSchedule) -> Int64 {
        Money.floor10(floorProduct(incomeTaxWon, s.localRate))
    }
}
