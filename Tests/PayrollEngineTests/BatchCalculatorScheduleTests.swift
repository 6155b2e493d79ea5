import PayrollEngine
import PayrollRules
import Testing

/// Every employee of a batch uses one of a few cached 4대보험/withholding schedules, borrowed by
/// both cores at once without retaining them. A batch mixing periods on both sides of the tables'
/// breakpoints must give, at any parallelism, the payslips each input gets alone.
@Suite("BatchCalculator across schedule boundaries")
struct BatchCalculatorScheduleTests {
    /// Periods on both sides of rate changes: 2025-12 / 2026-01 (pension, health, employment
    /// rates), and months of 2025 and 2026 with pay dates in the next month.
    static let months: [(year: Int, month: Int)] = [(2025, 12), (2026, 1), (2025, 6), (2026, 10), (2026, 12), (2025, 1)]

    /// Runs of 7 inputs per month (so slices of 48 hold several months), 1,000 inputs in all.
    static func inputs() -> [PayrollInput] {
        let workforces = months.enumerated().map { i, m in SyntheticWorkforce(seed: 101 + UInt64(i), year: m.year, month: m.month) }
        return (0..<1_000).map { i in workforces[(i / 7) % workforces.count].employee(i) }
    }

    @Test("parallel results equal serial ones and each input computed alone")
    func parallelEqualsAlone() {
        let inputs = Self.inputs()
        let serial = BatchCalculator.calculate(inputs, parallelism: 1)
        #expect(BatchCalculator.calculate(inputs, parallelism: 2) == serial)
        #expect(BatchCalculator.calculate(inputs, parallelism: 3) == serial)
        let alone = inputs.map { input in
            Result { () throws(PayrollError) -> Payslip in try PayrollCalculator.calculate(input) }
        }
        #expect(alone == serial)
        let failures = serial.filter { if case .failure = $0 { true } else { false } }.count
        #expect(failures == 0)
    }

    @Test("the months of this batch have different rule sets and insurance rates")
    func monthsDiffer() {
        let inputs = Self.inputs()
        var ruleSets = Set<String>()
        var pensionMethods = Set<String>()
        for case .success(let payslip) in BatchCalculator.calculate(inputs, parallelism: 2) {
            ruleSets.insert(payslip.ruleSet)
            if let pension = payslip.deductions.first(where: { $0.code == .nationalPension }) {
                // The printed rate: "… × 4.5% (…" or "… × 4.75% (…".
                pensionMethods.insert(String(pension.method.split(separator: "(")[0].split(separator: "×").last ?? ""))
            }
        }
        #expect(ruleSets.count == Self.months.count)
        #expect(pensionMethods.count >= 2)
    }
}
