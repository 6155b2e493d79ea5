import PayrollRules
import PayrollStore

/// The 임금명세서 as text, with every item of rules spec §7 (시행령 §27의2): who (name, birth
/// date, 사원번호), pay date, gross, each component's amount with its 계산방법 (`method`), the
/// 연장·야간·휴일 hours, each deduction with its method and the total, and the net pay; plus work
/// days and total hours (임금대장 items that satisfy item 5) and a withholding ratio other than 100 %.
enum PayslipText {
    struct Context {
        var run: PayrollRun
        var workDays: Int
        var withholdingRatio: Int
    }

    static let earningNames: [EarningCode: String] = [
        .basePay: "기본급", .overtime: "연장근로수당", .partTimeExcess: "초과근로수당(단시간)", .night: "야간근로수당",
        .holidayWork: "휴일근로수당", .weeklyAllowance: "주휴수당", .paidHoliday: "유급휴일수당",
        .nonTaxableMeals: "식대(비과세)", .nonTaxableCarAllowance: "자가운전보조금(비과세)", .nonTaxableChildcare: "보육수당(비과세)",
    ]
    static let deductionNames: [DeductionCode: String] = [
        .nationalPension: "국민연금", .healthInsurance: "건강보험", .longTermCare: "장기요양보험",
        .employmentInsurance: "고용보험", .incomeTax: "소득세", .localIncomeTax: "지방소득세",
    ]

    static func hours(_ minutes: Int64) -> String {
        minutes % 60 == 0 ? "\(minutes / 60)h" : "\(minutes / 60)h \(minutes % 60)m"
    }

    static func render(_ slip: StoredPayslip, context: Context) -> String {
        let pad = PayrollCommandSupport.pad, padLeft = PayrollCommandSupport.padLeft, won = PayrollCommandSupport.won
        var lines: [String] = []
        let r = context.run
        lines.append("임금명세서 — \(r.periodStart) … \(r.periodEnd) (run \(r.id), revision \(slip.revision))")
        lines.append("성명 \(slip.employeeName)   생년월일 \(slip.birthDate?.description ?? "-")   사원번호 \(slip.employeeNumber ?? "-")   (employee id \(slip.employeeId))")
        lines.append("임금지급일 \(r.payDate)")
        switch slip.result {
        case .failure(let error):
            lines.append("NOT COMPUTED: \(error)")
            lines.append("This employee is not paid by this run until the data is fixed and recalculated.")
        case .success(let p):
            let m = p.minutes
            lines.append("근로일수 \(context.workDays)일   총 근로시간 \(hours(m.worked))   연장 \(hours(m.overtime + m.partTimeExcess))   야간 \(hours(m.night))   휴일 \(hours(m.holiday + m.holidayOver8))")
            if context.withholdingRatio != 100 { lines.append("원천징수 비율 \(context.withholdingRatio)%") }
            lines.append("")
            lines.append(pad("지급 항목", 26) + padLeft("금액", 14) + "   계산방법 (method)")
            for e in p.earnings {
                lines.append(pad("  " + (earningNames[e.code] ?? e.code.rawValue), 26) + padLeft(won(e.amount), 14) + "   " + e.method)
            }
            lines.append(pad("임금 총액", 26) + padLeft(won(p.gross), 14) + "   (비과세 \(won(p.nonTaxable)), 과세 \(won(p.taxable)))")
            lines.append("")
            lines.append(pad("공제 항목", 26) + padLeft("금액", 14) + "   계산방법 (method)")
            for d in p.deductions {
                lines.append(pad("  " + (deductionNames[d.code] ?? d.code.rawValue), 26) + padLeft(won(d.amount), 14) + "   " + d.method)
            }
            lines.append(pad("공제 총액", 26) + padLeft(won(p.totalDeductions), 14))
            lines.append("")
            lines.append(pad("실지급액", 26) + padLeft(won(p.net), 14))
            for w in p.warnings { lines.append("warning \(w.code.rawValue)\(w.date.map { " (\($0))" } ?? ""): \(w.message)") }
        }
        return lines.joined(separator: "\n")
    }
}
