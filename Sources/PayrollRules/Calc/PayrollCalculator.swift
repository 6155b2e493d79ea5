/// Turns one employee-period into a complete payslip. The single entry point shared by
/// `payrun calc`, recalculation jobs and the batch engine.
///
/// Steps: validate the input (`PayrollInput.validated()`), classify and price time
/// (`EarningsCalculator`), add one `non_taxable_*` line per non-zero 비과세 item (calc-api
/// rule 11), split gross into non-taxable and taxable, compute 4대보험 and withholding
/// (`DeductionCalculator`, premium month = the month of `periodEnd`), then check the payslip's
/// invariants. A violated invariant fails this employee with a `PayrollError`; it never crashes.
public enum PayrollCalculator {
    public static func calculate(_ input: PayrollInput) throws(PayrollError) -> Payslip {
        try calculate(input, calendar: input.workplace.holidays ?? HolidayCalendar.korea)
    }

    /// `calculate(_:)` of `input` with `calendar` as its workplace calendar (what
    /// `input.workplace.holidays ?? HolidayCalendar.korea` is, or a calendar with the same entries):
    /// the batch engine passes each work item's own copy of the calendar this way instead of
    /// building a second input around it (a copy of the input retained and released each of its
    /// arrays and texts). `input.workplace.holidays` is not read.
    public static func calculate(_ input: PayrollInput, calendar: HolidayCalendar) throws(PayrollError) -> Payslip {
        // An input already as `validated()` returns it (every input the batch loader built) is
        // computed as it is, borrowed: no second input built from its fields.
        guard let changed = try input.validationChanges() else { return try calculate(validated: input, calendar: calendar) }
        return try calculate(validated: PayrollInput(
            periodStart: input.periodStart, periodEnd: input.periodEnd, payDate: input.payDate, workplace: input.workplace,
            employee: input.employee, contract: input.contract, shifts: changed.shifts, absences: changed.absences),
            calendar: calendar)
    }

    /// `calculate(_:calendar:)` of an input read where it lies. `input` is never written: it is
    /// `inout` only because an `inout` argument is read in place, while a non-`inout` argument
    /// read from an array's storage by pointer (the batch engine's) is copied first — a retain and
    /// a release of each of its arrays and texts per employee.
    public static func calculate(readingInPlace input: inout PayrollInput, calendar: HolidayCalendar) throws(PayrollError) -> Payslip {
        try calculate(input, calendar: calendar)
    }

    /// `calculate` of an input that passed `PayrollInput.validated()` unchanged.
    static func calculate(validated input: PayrollInput, calendar: HolidayCalendar) throws(PayrollError) -> Payslip {
        // Pay by date is read only by 일용 withholding (calc-api rule 13).
        let isDaily = input.contract.tax == .daily
        var earnings = try EarningsCalculator.compute(input, calendar: calendar, computesPayByDate: isDaily, inputIsValidated: true)

        // Taken out of `earnings` (not copied): appending a non-taxable line to an array still
        // shared with `earnings` would copy every line (and retain its texts) first.
        var lines = earnings.earnings
        earnings.earnings = []
        var nonTaxableWon: Int64 = 0
        var taxableExcessWon: Int64 = 0  // the part of non-taxable items above their exemption
        for item in NonTaxableItem.inOrder {
            let amountWon = item.amountWon(in: input.contract.nonTaxable)
            guard amountWon > 0 else { continue }
            guard let limit = item.exemptLimits.version(on: input.payDate) else {
                throw PayrollError(.unsupported, "no \(item.koreanName) exemption limit for payment date \(input.payDate)", field: "payDate")
            }
            let exemptWon = min(amountWon, limit.value)
            nonTaxableWon += exemptWon
            taxableExcessWon += amountWon - exemptWon
            lines.append(EarningLine(code: item.earningCode, minutes: nil, rate: nil, multiplier: nil, amount: amountWon,
                                     method: nonTaxableMethod(item, amountWon: amountWon, exemptWon: exemptWon, limitWon: limit.value)))
        }

        let grossWon = try sum(lines, \.amount, "earnings")
        let taxableWon = grossWon - nonTaxableWon
        let premiumMonth = DayMath.firstOfMonth(input.periodEnd)
        let deductions = try DeductionCalculator.compute(DeductionInput(
            premiumMonth: premiumMonth, payDate: input.payDate, taxableWon: taxableWon,
            insurance: input.contract.insurance, insuranceBase: input.contract.insuranceBase, tax: input.contract.tax,
            family: input.employee.family, children8to20: input.employee.children8to20,
            withholdingRatio: input.employee.withholdingRatio,
            payByDate: isDaily ? dailyPayByDate(earnings.payByDate, taxableExcessWon: taxableExcessWon, periodEnd: input.periodEnd) : []))
        let totalDeductionsWon = try sum(deductions.lines, \.amount, "deductions")
        let netWon = grossWon - totalDeductionsWon
        guard netWon >= 0 else {
            throw PayrollError(.unsupported, "deductions (\(Money.grouped(totalDeductionsWon))원) exceed gross pay (\(Money.grouped(grossWon))원); a negative net pay is not supported — check the declared insurance bases")
        }

        let payslip = Payslip(
            employeeId: input.employee.id, ruleSet: ruleSet(premiumMonth: premiumMonth), minutes: earnings.minutes,
            earnings: lines, gross: grossWon, nonTaxable: nonTaxableWon, taxable: taxableWon,
            deductions: deductions.lines, totalDeductions: totalDeductionsWon, net: netWon,
            warnings: deductions.warnings.isEmpty ? earnings.warnings : earnings.warnings + deductions.warnings)
        try payslip.checkInvariants()
        return payslip
    }

    /// The per-day pay for `tax: daily` (calc-api rule 13): the exact pay of each date plus the
    /// taxable excess of the non-taxable items over their exemption (rule 11), which is taxable
    /// pay too. That excess is a per-period amount earned on no particular day; it is attributed
    /// whole to the last date that has pay (`periodEnd` when no date has any), the day the
    /// period's pay is closed. Choice of this implementation (calc-api.md does not pin it):
    /// simple to show on a payslip, and the 150,000원 daily deduction is applied to it once, not
    /// once per work day as spreading it would. `payByDate` is in date order, so the excess is
    /// appended as one more entry of the last date (entries of one date count as one day).
    static func dailyPayByDate(_ payByDate: [DatedAmount], taxableExcessWon: Int64, periodEnd: LocalDate) -> [DatedAmount] {
        guard taxableExcessWon > 0 else { return payByDate }
        return payByDate + [DatedAmount(date: payByDate.last?.date ?? periodEnd, amount: Rational(taxableExcessWon))]
    }

    /// `kr-YYYY.MM` of the premium month.
    public static func ruleSet(premiumMonth: LocalDate) -> String {
        // The months the rule tables cover are named once (a small string each, so a copy is
        // free): a search by day instead of a calendar conversion and a text per payslip.
        let named = coveredRuleSets
        var lo = 0, hi = named.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if named[mid].firstDay < premiumMonth.daysSinceEpoch { lo = mid + 1 } else { hi = mid }
        }
        if lo < named.count && named[lo].firstDay == premiumMonth.daysSinceEpoch { return named[lo].ruleSet }
        return makeRuleSet(premiumMonth: premiumMonth)
    }

    /// `makeRuleSet` of each month `RuleCoverage` covers, by the day the month starts, ascending.
    private static let coveredRuleSets: [(firstDay: Int32, ruleSet: String)] = {
        var named: [(firstDay: Int32, ruleSet: String)] = []
        var month = RuleCoverage.premiumMonthFirst
        while month <= RuleCoverage.premiumMonthLast {
            named.append((month.daysSinceEpoch, makeRuleSet(premiumMonth: month)))
            // A month has at most 31 days (and the next at least 28): 31 days on is in the next.
            month = month.adding(days: 31).firstOfMonth
        }
        return named
    }()

    static func makeRuleSet(premiumMonth: LocalDate) -> String {
        let c = premiumMonth.components
        return MethodText.make { text in
            text.add("kr-")
            text.pad(c.year, 4)
            text.add(".")
            text.pad2(c.month)
        }
    }

    static func nonTaxableMethod(_ item: NonTaxableItem, amountWon: Int64, exemptWon: Int64, limitWon: Int64) -> String {
        let taxableWon = amountWon - exemptWon
        return MethodText.make { text in
            text.add(string: item.koreanName)
            text.add(" ")
            text.won(amountWon)
            text.add("원: 비과세 ")
            text.won(exemptWon)
            text.add("원 (월 한도 ")
            text.won(limitWon)
            text.add("원)")
            if taxableWon > 0 {
                text.add(", 과세 ")
                text.won(taxableWon)
                text.add("원")
            }
        }
    }

    /// Sum with overflow detection (amounts are bounded by `CalcLimits`, but a batch input is not
    /// decoded through them).
    static func sum<Line>(_ lines: [Line], _ amount: (Line) -> Int64, _ what: String) throws(PayrollError) -> Int64 {
        var total: Int64 = 0
        for line in lines {
            let (t, overflow) = total.addingReportingOverflow(amount(line))
            guard !overflow else { throw PayrollError(.unsupported, "the \(what) overflow a 64-bit amount") }
            total = t
        }
        return total
    }
}
