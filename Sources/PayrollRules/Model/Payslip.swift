/// Minutes by bucket (calc-api rule 4): worked = regular + overtime + partTimeExcess + holiday +
/// holidayOver8; night overlays them; weeklyAllowance and paidHoliday are paid, not worked.
public struct MinuteBuckets: Sendable, Hashable {
    public var worked: Int64 = 0
    public var regular: Int64 = 0
    public var overtime: Int64 = 0
    public var partTimeExcess: Int64 = 0
    public var night: Int64 = 0
    public var holiday: Int64 = 0
    public var holidayOver8: Int64 = 0
    public var weeklyAllowance: Int64 = 0
    public var paidHoliday: Int64 = 0
    public init() {}
}

public enum EarningCode: String, Sendable, CaseIterable {
    case basePay = "base_pay"
    case overtime
    case partTimeExcess = "part_time_excess"
    case night
    case holidayWork = "holiday_work"
    case weeklyAllowance = "weekly_allowance"
    case paidHoliday = "paid_holiday"
    case nonTaxableMeals = "non_taxable_meals"
    case nonTaxableCarAllowance = "non_taxable_car_allowance"
    case nonTaxableChildcare = "non_taxable_childcare"
}

/// One earnings line of the 임금명세서: minutes × rate × multiplier, rounded up to the 원.
public struct EarningLine: Sendable, Hashable {
    public var code: EarningCode
    /// nil for lines not computed from time (non-taxable items).
    public var minutes: Int64?
    /// 원 per hour (exact; printed `p/q` when not whole); nil for non-taxable items.
    public var rate: Rational?
    /// `"1"`, `"0.5"`, …
    public var multiplier: String?
    public var amount: Int64
    /// 계산방법, e.g. `24h × 10,320원 × 0.5`. Stored as `methodText` (see `LineMethod`); encoders
    /// read its bytes with `withMethodUTF8`.
    public var method: String {
        get { methodText.text }
        set { methodText = LineMethod(newValue) }
    }
    @usableFromInline var methodText: LineMethod

    public init(code: EarningCode, minutes: Int64?, rate: Rational?, multiplier: String?, amount: Int64, method: String) {
        self.code = code
        self.minutes = minutes
        self.rate = rate
        self.multiplier = multiplier
        self.amount = amount
        self.methodText = LineMethod(method)
    }
}

public enum DeductionCode: String, Sendable, CaseIterable {
    case nationalPension = "national_pension"
    case healthInsurance = "health_insurance"
    case longTermCare = "long_term_care"
    case employmentInsurance = "employment_insurance"
    case incomeTax = "income_tax"
    case localIncomeTax = "local_income_tax"
}

public struct DeductionLine: Sendable, Hashable {
    public var code: DeductionCode
    /// The base the amount was computed from (원), when there is one.
    public var base: Int64?
    public var amount: Int64
    /// 계산방법, stored as `methodText` (see `EarningLine.method`).
    public var method: String {
        get { methodText.text }
        set { methodText = LineMethod(newValue) }
    }
    @usableFromInline var methodText: LineMethod

    public init(code: DeductionCode, base: Int64?, amount: Int64, method: String) {
        self.code = code
        self.base = base
        self.amount = amount
        self.methodText = LineMethod(method)
    }
}

public enum WarningCode: String, Sendable, CaseIterable {
    case belowMinimumWage = "below_minimum_wage"
    case breakBelowStatutory = "break_below_statutory"
    case statutoryAllowanceOmitted = "statutory_allowance_omitted"
    /// An insurance base was estimated from this period's pay rather than declared.
    case insuranceBaseEstimated = "insurance_base_estimated"
}

public struct PayrollWarning: Sendable, Hashable {
    public var code: WarningCode
    public var message: String
    public var date: LocalDate?
    public init(code: WarningCode, message: String, date: LocalDate? = nil) {
        self.code = code
        self.message = message
        self.date = date
    }
}

/// A complete payslip (임금명세서) for one employee-period, carrying its own explanation.
public struct Payslip: Sendable, Hashable {
    public var employeeId: String
    /// `kr-YYYY.MM` of the premium month (the month of `periodEnd`).
    public var ruleSet: String
    public var minutes: MinuteBuckets
    public var earnings: [EarningLine]
    public var gross: Int64
    public var nonTaxable: Int64
    public var taxable: Int64
    public var deductions: [DeductionLine]
    public var totalDeductions: Int64
    public var net: Int64
    public var warnings: [PayrollWarning]

    public init(employeeId: String, ruleSet: String, minutes: MinuteBuckets, earnings: [EarningLine], gross: Int64,
                nonTaxable: Int64, taxable: Int64, deductions: [DeductionLine], totalDeductions: Int64, net: Int64,
                warnings: [PayrollWarning]) {
        self.employeeId = employeeId
        self.ruleSet = ruleSet
        self.minutes = minutes
        self.earnings = earnings
        self.gross = gross
        self.nonTaxable = nonTaxable
        self.taxable = taxable
        self.deductions = deductions
        self.totalDeductions = totalDeductions
        self.net = net
        self.warnings = warnings
    }
}
