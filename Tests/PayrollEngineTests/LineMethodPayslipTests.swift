import PayrollEngine
import PayrollRules
import Testing

@Suite("Payslip method texts stored in blocks")
struct LineMethodPayslipTests {
    /// The same lines with each method stored as a `String` of its own (the public initializers).
    static func plain(_ p: Payslip) -> Payslip {
        var q = p
        q.earnings = p.earnings.map {
            EarningLine(code: $0.code, minutes: $0.minutes, rate: $0.rate, multiplier: $0.multiplier, amount: $0.amount, method: $0.method)
        }
        q.deductions = p.deductions.map { DeductionLine(code: $0.code, base: $0.base, amount: $0.amount, method: $0.method) }
        return q
    }

    static func json(_ p: Payslip) -> [UInt8] {
        var w = JSONWriter()
        CalcResponseEncoder.write(p, to: &w)
        return w.bytes
    }

    @Test("every line's method bytes are its method text; the payslip equals, hashes and encodes as with String methods")
    func methodsOfManyPayslips() throws {
        var checked = 0, lines = 0
        for (seed, month) in [(3, 1), (5, 5), (7, 10), (11, 12)] {
            let workforce = SyntheticWorkforce(seed: UInt64(seed), year: 2026, month: month)
            for i in 0..<300 {
                guard case .success(let p) = Result(catching: { () throws(PayrollError) -> Payslip in
                    try PayrollCalculator.calculate(workforce.employee(i))
                }) else { continue }
                for line in p.earnings {
                    #expect(line.withMethodUTF8 { Array($0) } == Array(line.method.utf8))
                    #expect(!line.method.isEmpty)
                }
                for line in p.deductions {
                    #expect(line.withMethodUTF8 { Array($0) } == Array(line.method.utf8))
                    #expect(!line.method.isEmpty)
                }
                let q = Self.plain(p)
                #expect(p == q)
                #expect(p.hashValue == q.hashValue)
                #expect(Self.json(p) == Self.json(q))
                checked += 1
                lines += p.earnings.count + p.deductions.count
            }
        }
        #expect(checked > 1_000 && lines > 8 * checked)
    }
}
