// OWNER: rules-deductions helper. Placeholder signatures agreed between helpers; replace the bodies.

/// Everything the deduction side needs for one employee-period.
public struct DeductionInput: Sendable {
    /// The premium month: the first day of the month of `periodEnd` (calc-api).
    public var premiumMonth: LocalDate
    public var payDate: LocalDate
    /// Taxable pay of the period (gross − exempt 비과세), 원.
    public var taxableWon: Int64
    public var insurance: InsuranceFlags
    public var insuranceBase: InsuranceBases
    public var tax: TaxMode
    public var family: Int
    public var children8to20: Int
    public var withholdingRatio: Int
    /// Exact taxable pay per date, for `tax: daily` (calc-api rule 13).
    public var payByDate: [DatedAmount]

    public init(premiumMonth: LocalDate, payDate: LocalDate, taxableWon: Int64, insurance: InsuranceFlags,
                insuranceBase: InsuranceBases, tax: TaxMode, family: Int, children8to20: Int,
                withholdingRatio: Int, payByDate: [DatedAmount]) {
        self.premiumMonth = premiumMonth
        self.payDate = payDate
        self.taxableWon = taxableWon
        self.insurance = insurance
        self.insuranceBase = insuranceBase
        self.tax = tax
        self.family = family
        self.children8to20 = children8to20
        self.withholdingRatio = withholdingRatio
        self.payByDate = payByDate
    }
}

public struct DeductionResult: Sendable {
    /// In the order of `DeductionCode` (insurances, then income tax, then local tax).
    public var lines: [DeductionLine]
    public var warnings: [PayrollWarning]
    public init(lines: [DeductionLine], warnings: [PayrollWarning]) {
        self.lines = lines
        self.warnings = warnings
    }
}

public enum DeductionCalculator {
    public static func compute(_ input: DeductionInput) throws(PayrollError) -> DeductionResult {
        throw PayrollError(.unsupported, "deductions not implemented yet")
    }
}

/// The `payrun tax` result (calc-api): §5.2–§5.5 of the rules spec.
public struct WithholdingResult: Sendable, Hashable {
    public var incomeTax: Int64
    public var localIncomeTax: Int64
    /// The §5.2–§5.4 amount before the child deduction and the ratio.
    public var tableCell: Int64
    /// The full note-3 child deduction, even when it exceeds the cell.
    public var childDeduction: Int64
    public init(incomeTax: Int64, localIncomeTax: Int64, tableCell: Int64, childDeduction: Int64) {
        self.incomeTax = incomeTax
        self.localIncomeTax = localIncomeTax
        self.tableCell = tableCell
        self.childDeduction = childDeduction
    }
}

public enum IncomeTax {
    /// 근로소득 간이세액표 withholding for one monthly payment.
    public static func simplified(monthlyPayWon: Int64, family: Int, children8to20: Int, ratio: Int,
                                  payDate: LocalDate) throws(PayrollError) -> WithholdingResult {
        throw PayrollError(.unsupported, "income tax not implemented yet")
    }
}
