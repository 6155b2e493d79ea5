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
            MethodText.make { text in write(&text, monthlyPayWon: monthlyPayWon) }
        }

        func write(_ text: inout MethodText, monthlyPayWon: Int64) {
            switch source {
            case .belowTable:
                text.add("월급여액 ")
                text.won(monthlyPayWon)
                text.add("원 (770천원 미만)")
            case let .row(lowK, highK):
                text.add("간이세액표 ")
                text.won(lowK)
                if highK != lowK {
                    text.add("~")
                    text.won(highK)
                }
                text.add("천원")
            case .overTop:
                text.add("월급여액 ")
                text.won(monthlyPayWon)
                text.add("원 (10,000천원 초과 산식)")
            }
            text.add(", 공제대상가족 ")
            text.int(family)
            text.add(family > SimplifiedTaxTable.familyColumns ? "명 (11명 초과 산식): " : "명: ")
            text.won(result.tableCell)
            text.add("원")
            if children8to20 > 0 {
                text.add(" − 8~20세 자녀 ")
                text.int(children8to20)
                text.add("명 ")
                text.won(result.childDeduction)
                text.add("원")
                if result.childDeduction > result.tableCell { text.add(" (0원 미만은 0원)") }
            }
            if ratio != 100 {
                text.add(" × ")
                text.int(ratio)
                text.add("%")
            }
            if children8to20 > 0 || ratio != 100 {
                text.add(" = ")
                text.won(beforeSmallAmountWon)
                text.add("원")
            }
            if beforeSmallAmountWon != result.incomeTax { text.add(" → 1,000원 미만 소액부징수 0원") }
        }
    }

    static func simplifiedDetail(monthlyPayWon: Int64, family: Int, children8to20: Int, ratio: Int,
                                 payDate: LocalDate) throws(PayrollError) -> SimplifiedDetail {
        try DeductionCalculator.checkAmount(monthlyPayWon, "monthlyPay")
        try validateEmployee(family: family, children8to20: children8to20, ratio: ratio,
                             familyField: "family", childrenField: "children8to20", ratioField: "ratio")
        return simplifiedDetail(monthlyPayWon: monthlyPayWon, family: family, children8to20: children8to20, ratio: ratio,
                                schedule: try WithholdingSchedule.resolve(payDate))
    }

    /// With validated inputs and a resolved schedule (the batch path).
    static func simplifiedDetail(monthlyPayWon: Int64, family: Int, children8to20: Int, ratio: Int,
                                 schedule s: WithholdingSchedule) -> SimplifiedDetail {
        let (cellWon, source) = s.table.amountWon(payWon: monthlyPayWon, family: family)
        let childWon = s.children.amountWon(children: children8to20)
        let afterChildWon = max(cellWon - childWon, 0)                 // note 3: never below 0
        let scaledWon = Money.floor10(afterChildWon * Int64(ratio) / 100)
        let incomeTaxWon = scaledWon < s.smallAmountThresholdWon ? 0 : scaledWon  // 소액부징수 after the ratio
        let result = WithholdingResult(incomeTax: incomeTaxWon, localIncomeTax: localTax(incomeTaxWon, s),
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
