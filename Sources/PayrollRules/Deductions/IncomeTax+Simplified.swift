extension IncomeTax {
    /// A `simplified` withholding with what its 계산방법 text needs.
    struct SimplifiedDetail {
        var result: WithholdingResult
        var source: SimplifiedTaxTable.Source
        var family: Int
        var children8to20: Int
        var ratio: Int
        /// floor10(after child deduction × ratio) before 소액부징수.
        var beforeSmallAmountWon: Int64

        /// `간이세액표 1,690~1,700천원, 공제대상가족 1명: 12,840원`, then the child deduction, the
        /// ratio and 소액부징수 when they apply.
        func method(monthlyPayWon: Int64) -> String {
            var text: String
            switch source {
            case .belowTable:
                text = "월급여액 " + Money.grouped(monthlyPayWon) + "원 (770천원 미만): 0원"
            case let .row(lowK, highK):
                text = "간이세액표 " + (lowK == highK ? Money.grouped(lowK) : Money.grouped(lowK) + "~" + Money.grouped(highK))
                    + "천원, 공제대상가족 " + String(family) + "명"
                    + (family > SimplifiedTaxTable.familyColumns ? " (11명 초과 산식)" : "")
                    + ": " + Money.grouped(result.tableCell) + "원"
            case .overTop:
                text = "월급여액 " + Money.grouped(monthlyPayWon) + "원 (10,000천원 초과 산식), 공제대상가족 "
                    + String(family) + "명" + (family > SimplifiedTaxTable.familyColumns ? " (11명 초과 산식)" : "")
                    + ": " + Money.grouped(result.tableCell) + "원"
            }
            if children8to20 > 0 {
                text += " − 8~20세 자녀 " + String(children8to20) + "명 " + Money.grouped(result.childDeduction) + "원"
                if result.childDeduction > result.tableCell { text += " (0원 미만은 0원)" }
            }
            if ratio != 100 { text += " × " + String(ratio) + "%" }
            if children8to20 > 0 || ratio != 100 { text += " = " + Money.grouped(beforeSmallAmountWon) + "원" }
            if beforeSmallAmountWon != result.incomeTax { text += " → 1,000원 미만 소액부징수 0원" }
            return text
        }
    }

    static func simplifiedDetail(monthlyPayWon: Int64, family: Int, children8to20: Int, ratio: Int,
                                 payDate: LocalDate) throws(PayrollError) -> SimplifiedDetail {
        guard monthlyPayWon >= 0 && monthlyPayWon <= DeductionCalculator.amountWonMax else {
            throw PayrollError(.invalidValue, "monthly pay must be 0 … " + Money.grouped(DeductionCalculator.amountWonMax) + "원",
                               field: "monthlyPay")
        }
        try validateEmployee(family: family, children8to20: children8to20, ratio: ratio,
                             familyField: "family", childrenField: "children8to20", ratioField: "ratio")
        let table = try withholdingParameter(SimplifiedTaxTable.versions, payDate)
        let children = try withholdingParameter(WithholdingParameters.childDeduction, payDate)
        let threshold = try withholdingParameter(WithholdingParameters.smallAmountThreshold, payDate)

        let (cellWon, source) = table.amountWon(payWon: monthlyPayWon, family: family)
        let childWon = children.amountWon(children: children8to20)
        let afterChildWon = max(cellWon - childWon, 0)                 // note 3: never below 0
        let scaledWon = Money.floor10(afterChildWon * Int64(ratio) / 100)
        let incomeTaxWon = scaledWon < threshold ? 0 : scaledWon      // 소액부징수 after the ratio
        let result = WithholdingResult(incomeTax: incomeTaxWon, localIncomeTax: try localTax(incomeTaxWon, payDate),
                                       tableCell: cellWon, childDeduction: childWon)
        return SimplifiedDetail(result: result, source: source, family: family, children8to20: children8to20,
                                ratio: ratio, beforeSmallAmountWon: scaledWon)
    }

    /// Family, children and ratio checks shared by `payrun tax` and `payrun calc` (with their field
    /// names): family 1 … `familyMax`; 0 ≤ children ≤ family − 1 (children are counted in the
    /// family, §3.2); ratio 80, 100 or 120.
    static func validateEmployee(family: Int, children8to20: Int, ratio: Int, familyField: String,
                                 childrenField: String, ratioField: String) throws(PayrollError) {
        guard family >= 1 && family <= familyMax else {
            throw PayrollError(.invalidValue, "family must be 1 … " + String(familyMax) + " (it counts the employee)",
                               field: familyField)
        }
        guard children8to20 >= 0 && children8to20 < family else {
            throw PayrollError(.invalidValue, "children8to20 must be 0 … family − 1 (children are counted in family)",
                               field: childrenField)
        }
        guard WithholdingParameters.withholdingRatiosPercent.contains(ratio) else {
            throw PayrollError(.invalidValue, "ratio must be 80, 100 or 120", field: ratioField)
        }
    }
}
