@testable import PayrollRules

/// `d("2026-11-25")`: a date literal for tests (traps on a typo, which fails the test).
func d(_ iso: String) -> LocalDate { LocalDate(iso: iso)! }

/// A `DeductionInput` with calc-api defaults (every insurance on with estimated bases, simplified
/// tax, family 1, no children, ratio 100).
func deductionInput(taxable: Int64, premiumMonth: String, payDate: String, family: Int = 1, children: Int = 0,
                    ratio: Int = 100, tax: TaxMode = .simplified, insurance: InsuranceFlags = InsuranceFlags(),
                    bases: InsuranceBases = InsuranceBases(), payByDate: [DatedAmount] = []) -> DeductionInput {
    DeductionInput(premiumMonth: d(premiumMonth), payDate: d(payDate), taxableWon: taxable, insurance: insurance,
                   insuranceBase: bases, tax: tax, family: family, children8to20: children, withholdingRatio: ratio,
                   payByDate: payByDate)
}

extension DeductionResult {
    /// The amount of the line with `code`, or nil when there is no such line.
    func amount(_ code: DeductionCode) -> Int64? { lines.first { $0.code == code }?.amount }
    var total: Int64 { lines.reduce(0) { $0 + $1.amount } }
    var codes: [DeductionCode] { lines.map(\.code) }
}

/// Four insurance amounts of one premium month, as the spec's tables print them.
struct InsuranceAmounts: Hashable, CustomStringConvertible {
    var pension: Int64, health: Int64, longTermCare: Int64, employment: Int64
    var description: String { "연금 \(pension) / 건강 \(health) / 요양 \(longTermCare) / 고용 \(employment)" }
}

/// The four insurance lines for taxable pay estimated as the base.
func insurance(taxable: Int64, premiumMonth: String) throws -> InsuranceAmounts {
    let r = try DeductionCalculator.compute(deductionInput(taxable: taxable, premiumMonth: premiumMonth,
                                                           payDate: "2026-11-25", tax: .none))
    return InsuranceAmounts(pension: r.amount(.nationalPension)!, health: r.amount(.healthInsurance)!,
                            longTermCare: r.amount(.longTermCare)!, employment: r.amount(.employmentInsurance)!)
}
