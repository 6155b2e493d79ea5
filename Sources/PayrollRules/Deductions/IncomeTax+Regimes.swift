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
        try business33Detail(payWon: payWon, payDate: payDate).withheld
    }

    /// 일용근로소득 (calc-api rule 13, §6.1): Σ over dates of (that day's exact pay − 150,000) × 2.7%
    /// when positive, floor10 of the sum, 0 when under 1,000 (소액부징수 per payment); 지방소득세
    /// floor10(10%). Several entries with the same date count as one day.
    public static func daily(payByDate: [DatedAmount], payDate: LocalDate) throws(PayrollError) -> TaxWithheld {
        try dailyDetail(payByDate: payByDate, payDate: payDate).withheld
    }

    // MARK: Details (amounts plus what the 계산방법 text needs)

    struct Business33Detail {
        var withheld: TaxWithheld
        var rate: Rational
    }

    static func business33Detail(payWon: Int64, payDate: LocalDate) throws(PayrollError) -> Business33Detail {
        guard payWon >= 0 && payWon <= DeductionCalculator.amountWonMax else {
            throw PayrollError(.invalidValue, "pay must be 0 … " + Money.grouped(DeductionCalculator.amountWonMax) + "원",
                               field: "taxable")
        }
        let rule = try withholdingParameter(WithholdingParameters.businessIncome, payDate)
        var tax = Money.floor10(floorProduct(payWon, rule.rate))
        if rule.smallAmountExemptionApplies, tax < (try withholdingParameter(WithholdingParameters.smallAmountThreshold, payDate)) {
            tax = 0
        }
        return Business33Detail(withheld: TaxWithheld(incomeTaxWon: tax, localIncomeTaxWon: try localTax(tax, payDate)),
                                rate: rule.rate)
    }

    struct DailyDetail {
        var withheld: TaxWithheld
        /// floor10 of the summed per-day tax, before 소액부징수.
        var beforeSmallAmountWon: Int64
        var taxedDays: Int
        var days: Int
        var rule: DailyWorkerWithholding
    }

    static func dailyDetail(payByDate: [DatedAmount], payDate: LocalDate) throws(PayrollError) -> DailyDetail {
        let rule = try withholdingParameter(WithholdingParameters.dailyWorker, payDate)
        let threshold = try withholdingParameter(WithholdingParameters.smallAmountThreshold, payDate)
        let deduction = Rational(rule.dailyDeductionWon)
        var excessSum = Rational.zero
        var days = 0, taxedDays = 0
        var i = 0
        while i < payByDate.count {
            // One day: every entry of this date (the list is in date order).
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
        let beforeSmallAmount = Money.floor10(excessSum * rule.rate)
        let tax = beforeSmallAmount < threshold ? 0 : beforeSmallAmount
        return DailyDetail(withheld: TaxWithheld(incomeTaxWon: tax, localIncomeTaxWon: try localTax(tax, payDate)),
                           beforeSmallAmountWon: beforeSmallAmount, taxedDays: taxedDays, days: days, rule: rule)
    }

    /// 지방소득세 특별징수: floor10(income tax × 10%) (§5.5).
    static func localTax(_ incomeTaxWon: Int64, _ payDate: LocalDate) throws(PayrollError) -> Int64 {
        Money.floor10(floorProduct(incomeTaxWon, try withholdingParameter(WithholdingParameters.localIncomeTaxRate, payDate)))
    }

    /// The payment-date version of a withholding parameter, or `unsupported` naming `payDate`.
    static func withholdingParameter<V>(_ table: ParameterTable<V>, _ payDate: LocalDate) throws(PayrollError) -> V {
        guard let value = table.value(on: payDate) else {
            throw PayrollError(.unsupported, "no " + table.name + " for payment date " + payDate.description
                               + " (tables cover payments from " + WithholdingParameters.firstCoveredPaymentDate.description + ")",
                               field: "payDate")
        }
        return value
    }
}
