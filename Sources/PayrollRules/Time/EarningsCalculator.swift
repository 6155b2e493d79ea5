// OWNER: rules-time helper. Placeholder signature agreed between helpers; replace the body.

/// What the time side of the rules produces for one employee-period: bucketed minutes, the
/// earnings lines paid for time (base pay, premiums, 주휴, paid holidays) and warnings.
public struct EarningsResult: Sendable {
    public var minutes: MinuteBuckets
    /// Time-based earnings lines only (no non-taxable items), in payslip order.
    public var earnings: [EarningLine]
    public var warnings: [PayrollWarning]
    /// Exact (unrounded) pay attributed to each date, date order, for 일용 withholding (calc-api
    /// rule 13: per shift-start day; 주휴 and paid-holiday pay on their own dates).
    public var payByDate: [DatedAmount]

    public init(minutes: MinuteBuckets, earnings: [EarningLine], warnings: [PayrollWarning], payByDate: [DatedAmount]) {
        self.minutes = minutes
        self.earnings = earnings
        self.warnings = warnings
        self.payByDate = payByDate
    }
}

public struct DatedAmount: Sendable, Hashable {
    public var date: LocalDate
    public var amount: Rational
    public init(date: LocalDate, amount: Rational) { self.date = date; self.amount = amount }
}

public enum EarningsCalculator {
    /// Classifies the shifts and prices every time-based line. Input is already validated
    /// (shifts sorted, non-overlapping, end > start, breaks inside shifts).
    public static func compute(_ input: PayrollInput) throws(PayrollError) -> EarningsResult {
        throw PayrollError(.unsupported, "earnings not implemented yet")
    }
}
