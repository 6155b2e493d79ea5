
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

/// The deduction side of a payslip: 4대보험 employee shares (§2), income tax and 지방소득세 (§5, §6),
/// each line with its base and 계산방법.
public enum DeductionCalculator {
    /// Largest taxable pay or declared base accepted, 원 (1조: a limit on input that keeps every
    /// product with a statutory rate inside `Int64`).
    public static let amountWonMax: Int64 = 1_000_000_000_000

    /// Computes the deduction lines of one employee-period, in `DeductionCode` order. A scheme the
    /// flags do not cover has no line; tax lines are absent only for `tax: none`. Field names in
    /// errors are the calc-api request paths.
    public static func compute(_ input: DeductionInput) throws(PayrollError) -> DeductionResult {
        try validate(input)
        // Borrowed, not retained: one schedule object serves every employee on every core, and a
        // retain/release pair per employee would bounce its reference count between the cores.
        let insurance = try InsuranceSchedule.resolveUnretained(input.premiumMonth)
        let withholding = try WithholdingSchedule.resolveUnretained(input.payDate)
        let lines = insurance._withUnsafeGuaranteedRef { insurance in
            withholding._withUnsafeGuaranteedRef { withholding in computeLines(input, insurance, withholding) }
        }
        return DeductionResult(lines: lines, warnings: [])
    }

    /// The lines of a validated input with its schedules; their 계산방법 texts share one block.
    static func computeLines(_ input: DeductionInput, _ insurance: InsuranceSchedule, _ withholding: WithholdingSchedule) -> [DeductionLine] {
        MethodTextBlock.with { texts in
            var lines = computeLines(input, insurance, withholding, &texts)
            let block = texts.finish()
            for k in lines.indices { lines[k].methodText.attach(to: block) }
            return lines
        }
    }

    private static func computeLines(_ input: DeductionInput, _ insurance: InsuranceSchedule, _ withholding: WithholdingSchedule,
                                     _ texts: inout MethodTextBlock) -> [DeductionLine] {
        let taxable = input.taxableWon
        var lines = [DeductionLine]()
        lines.reserveCapacity(6)
        if input.insurance.nationalPension {
            lines.append(SocialInsurance.nationalPension(input.insuranceBase.nationalPensionWon, taxable, insurance, &texts))
        }
        if input.insurance.health {
            let health = SocialInsurance.health(input.insuranceBase.healthWon, taxable, insurance, &texts)
            lines.append(health)
            lines.append(SocialInsurance.longTermCare(health.amount, insurance, &texts))
        }
        if input.insurance.employment {
            lines.append(SocialInsurance.employment(input.insuranceBase.employmentWon, taxable, insurance, &texts))
        }
        switch input.tax {
        case .none:
            break
        case .simplified:
            let detail = IncomeTax.simplifiedDetail(monthlyPayWon: taxable, family: input.family,
                                                    children8to20: input.children8to20,
                                                    ratio: input.withholdingRatio, schedule: withholding)
            let method = texts.text { text in detail.write(&text, monthlyPayWon: taxable) }
            appendTaxLines(&lines, withholding, taxable, detail.result.incomeTax, detail.result.localIncomeTax, method: method, &texts)
        case .business33:
            let withheld = IncomeTax.business33(payWon: taxable, schedule: withholding)
            let method = texts.text { text in
                text.won(taxable)
                text.add("원 × ")
                text.add(withholding.businessRatePrinted)
                text.add(" (사업소득 원천징수, 10원 미만 절사)")
            }
            appendTaxLines(&lines, withholding, taxable, withheld.incomeTaxWon, withheld.localIncomeTaxWon, method: method, &texts)
        case .daily:
            let detail = IncomeTax.dailyDetail(payByDate: input.payByDate, schedule: withholding)
            let method = texts.text { text in
                text.add("일용근로소득 ")
                text.int(detail.taxedDays)
                text.add("일/")
                text.int(detail.days)
                text.add("일 과세: Σ(일급 − ")
                text.won(withholding.daily.dailyDeductionWon)
                text.add("원) × ")
                text.add(withholding.dailyRatePrinted)
                text.add(" = ")
                text.won(detail.beforeSmallAmountWon)
                text.add("원 (10원 미만 절사)")
                if detail.withheld.incomeTaxWon != detail.beforeSmallAmountWon { text.add(" → 1,000원 미만 소액부징수 0원") }
            }
            appendTaxLines(&lines, withholding, taxable, detail.withheld.incomeTaxWon, detail.withheld.localIncomeTaxWon,
                           method: method, &texts)
        }
        return lines
    }

    /// `method` is consumed: the income-tax line takes it over (borrowed, it was copied into the
    /// line and the caller's destroyed, once per employee).
    static func appendTaxLines(_ lines: inout [DeductionLine], _ schedule: WithholdingSchedule, _ baseWon: Int64, _ incomeTaxWon: Int64,
                               _ localIncomeTaxWon: Int64, method: consuming LineMethod, _ texts: inout MethodTextBlock) {
        lines.append(DeductionLine(code: .incomeTax, base: baseWon, amount: incomeTaxWon, methodText: method))
        let localMethod = texts.text { text in
            text.won(incomeTaxWon)
            text.add("원 × ")
            text.add(schedule.localRatePrinted)
            text.add(" (10원 미만 절사)")
        }
        lines.append(DeductionLine(code: .localIncomeTax, base: incomeTaxWon, amount: localIncomeTaxWon, methodText: localMethod))
    }

    /// Input checks with calc-api field paths (cheap: a few comparisons).
    static func validate(_ input: DeductionInput) throws(PayrollError) {
        try checkAmount(input.taxableWon, "taxable")
        if input.tax == .daily { try IncomeTax.checkDailyPay(input.payByDate) }
        try checkBase(input.insuranceBase.nationalPensionWon, "contract.insuranceBase.nationalPension")
        try checkBase(input.insuranceBase.healthWon, "contract.insuranceBase.health")
        try checkBase(input.insuranceBase.employmentWon, "contract.insuranceBase.employment")
        try IncomeTax.validateEmployee(family: input.family, children8to20: input.children8to20,
                                       ratio: input.withholdingRatio, familyField: "employee.family",
                                       childrenField: "employee.children8to20", ratioField: "employee.withholdingRatio")
    }

    static func checkBase(_ won: Int64?, _ field: String) throws(PayrollError) {
        if let won { try checkAmount(won, field) }
    }

    /// 0 … `amountWonMax`, else `invalid_value` on `field`.
    static func checkAmount(_ won: Int64, _ field: String) throws(PayrollError) {
        guard won >= 0 && won <= amountWonMax else {
            throw PayrollError(.invalidValue, field + " " + String(won) + "원 is outside 0 … "
                               + Money.grouped(amountWonMax) + "원", field: field)
        }
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
    /// 근로소득 간이세액표 withholding for one monthly payment (§5.5): the table amount for
    /// 월급여액 `monthlyPayWon` (비과세 excluded) and `family` (≥ 1, counting the employee), less the
    /// note-3 child deduction for the payment date (not below 0), × `ratio` % (80/100/120) floored
    /// to 10원, 0 under 1,000원 (소액부징수); 지방소득세 10% floored to 10원. Errors name the
    /// `payrun tax` request fields.
    public static func simplified(monthlyPayWon: Int64, family: Int, children8to20: Int, ratio: Int,
                                  payDate: LocalDate) throws(PayrollError) -> WithholdingResult {
        try simplifiedDetail(monthlyPayWon: monthlyPayWon, family: family, children8to20: children8to20,
                             ratio: ratio, payDate: payDate).result
    }
}
