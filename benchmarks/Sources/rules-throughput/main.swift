// Rules engine throughput: computes generated employee-months (≈22 shifts each, mixed contracts)
// with full payslips including every `method` text, and reports employee-months per second.
//
//   swift run -c release --package-path benchmarks rules-throughput [--employees N] [--threads T] [--repeat R]
//
// Generation is not timed. Each repetition computes every employee once; the best and the median
// repetition are reported. The checksum (sum of net pay and of method-text bytes) proves the work
// was done and is identical across thread counts.
import Dispatch
import Foundation
import PayrollEngine
import PayrollRules

var employees = 100_000
var threads = 1
var repetitions = 5
var printsDigest = false
var varies = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--employees": employees = Int(arguments.next() ?? "") ?? employees
    case "--threads": threads = Int(arguments.next() ?? "") ?? threads
    case "--repeat": repetitions = Int(arguments.next() ?? "") ?? repetitions
    case "--digest": printsDigest = true
    case "--vary": varies = true
    default:
        print("usage: rules-throughput [--employees N] [--threads T] [--repeat R] [--digest] [--vary]")
        exit(2)
    }
}

let workforce = SyntheticWorkforce(seed: 2026, year: 2026, month: 10)
/// `--vary`: perturbs the generated employees so that a `--digest` comparison also covers the
/// paths the plain mix does not take (every tax regime, declared bases, taxable non-taxable
/// excess, children and ratios, explicit and default breaks, unsorted shifts and absences,
/// allowance switches, 5인 미만 holiday premiums). Not for throughput figures.
func varied(_ input: PayrollInput, _ i: Int) -> PayrollInput {
    var p = input
    p.contract.tax = [TaxMode.simplified, .business33, .daily, .none][i % 4]
    if p.contract.tax == .daily && p.contract.wageType == .monthly { p.contract.tax = .simplified }
    if i % 5 == 0 { p.contract.nonTaxable = NonTaxableItems(mealsWon: 250_000, carAllowanceWon: 100_000, childcareWon: 300_000) }
    if i % 6 == 0 { p.contract.insuranceBase = InsuranceBases(nationalPensionWon: 7_000_000, healthWon: 250_000, employmentWon: 1_500_000) }
    if i % 7 == 0 && p.employee.family > 1 { p.employee.children8to20 = 1; p.employee.withholdingRatio = [80, 120][i % 2] }
    if i % 8 == 0 { p.contract.weeklyAllowance = [.always, .never][i / 8 % 2] }
    if i % 9 == 0 { p.contract.overtimeAllowance = .never; p.contract.nightAllowance = .always; p.contract.holidayAllowance = .always }
    if i % 10 == 0 {
        p.contract.defaultBreakMinutes = 45
        for k in p.shifts.indices where k % 2 == 0 { p.shifts[k].breakMinutes = nil }
    }
    if i % 11 == 0 {
        for k in p.shifts.indices where k % 3 == 0 && p.shifts[k].end.value - p.shifts[k].start.value > 300 {
            let s = p.shifts[k].start.value
            p.shifts[k].breaks = [BreakWindow(start: KoreaMinute(s + 120), end: KoreaMinute(s + 150)),
                                  BreakWindow(start: KoreaMinute(s + 60), end: KoreaMinute(s + 70))]
            p.shifts[k].breakMinutes = nil
        }
    }
    if i % 13 == 0 { p.shifts.reverse(); p.absences.reverse() }
    if i % 17 == 0 && !p.shifts.isEmpty { p.shifts.swapAt(0, p.shifts.count / 2) }  // unsorted (an error when overlapping)
    if i % 19 == 0 { p.employee.leftOn = p.periodStart.adding(days: 20) }
    return p
}

let inputs = (0..<employees).map { varies ? varied(workforce.employee($0), $0) : workforce.employee($0) }
let shiftCount = inputs.reduce(0) { $0 + $1.shifts.count }

func checksum(_ results: [Result<Payslip, PayrollError>]) -> (net: Int64, methodBytes: Int, failures: Int) {
    var net: Int64 = 0, bytes = 0, failures = 0
    for r in results {
        switch r {
        case .success(let p):
            net &+= p.net
            for e in p.earnings { bytes += e.method.utf8.count }
            for d in p.deductions { bytes += d.method.utf8.count }
        case .failure:
            failures += 1
        }
    }
    return (net, bytes, failures)
}

/// FNV-1a over every field of every result (amounts, minutes, rates, every `method` and warning
/// text, error descriptions): `--digest` prints it so that an optimisation can be checked to leave
/// every output byte-identical, not only the sums of the checksum line.
func digest(_ results: [Result<Payslip, PayrollError>]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    func bytes(_ s: String) { for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }; h = (h ^ 0xff) &* 0x100_0000_01b3 }
    func int(_ v: Int64?) { bytes(v.map { String($0) } ?? "nil") }
    for r in results {
        switch r {
        case .success(let p):
            bytes(p.employeeId); bytes(p.ruleSet)
            let m = p.minutes
            for v in [m.worked, m.regular, m.overtime, m.partTimeExcess, m.night, m.holiday, m.holidayOver8,
                      m.weeklyAllowance, m.paidHoliday] { int(v) }
            for e in p.earnings {
                bytes(e.code.rawValue); int(e.minutes); bytes(e.rate?.description ?? "nil"); bytes(e.multiplier ?? "nil")
                int(e.amount); bytes(e.method)
            }
            int(p.gross); int(p.nonTaxable); int(p.taxable)
            for d in p.deductions { bytes(d.code.rawValue); int(d.base); int(d.amount); bytes(d.method) }
            int(p.totalDeductions); int(p.net)
            for w in p.warnings { bytes(w.code.rawValue); bytes(w.message); bytes(w.date?.description ?? "nil") }
        case .failure(let e):
            bytes("failure"); bytes(e.description)
        }
    }
    return h
}

/// CPU time of the whole process (all threads), seconds: on a shared machine it shows how much of
/// the wall-clock figure was spent computing rather than waiting for a core.
func processCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

let clock = ContinuousClock()
var seconds: [Double] = []
var cpuSeconds: [Double] = []
var last: (net: Int64, methodBytes: Int, failures: Int) = (0, 0, 0)
for _ in 0..<repetitions {
    let start = clock.now
    let cpuStart = processCPUSeconds()
    let results = BatchCalculator.calculate(inputs, parallelism: threads)
    let elapsed = clock.now - start
    cpuSeconds.append(processCPUSeconds() - cpuStart)
    seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    last = checksum(results)
    if printsDigest && seconds.count == repetitions { print("  digest: \(String(digest(results), radix: 16))") }
}
seconds.sort()
let best = seconds.first!, median = seconds[seconds.count / 2]
let employeeCount = employees
func rate(_ s: Double) -> String { String(Int((Double(employeeCount) / s).rounded())) }
print("rules-throughput: employees=\(employees) shifts=\(shiftCount) (\(String(format: "%.1f", Double(shiftCount) / Double(employees))) per employee) threads=\(threads) repetitions=\(repetitions)")
print("  best   \(String(format: "%.3f", best)) s  → \(rate(best)) employee-months/s")
print("  median \(String(format: "%.3f", median)) s  → \(rate(median)) employee-months/s")
cpuSeconds.sort()
print("  cpu    \(String(format: "%.3f", cpuSeconds[0])) s  (best process CPU time, all threads; the figures above are wall clock)")
print("  checksum: net=\(last.net) methodBytes=\(last.methodBytes) failures=\(last.failures)")
if last.failures > 0 {
    if case .failure(let error)? = BatchCalculator.calculate(inputs, parallelism: 1).first(where: { if case .failure = $0 { true } else { false } }) {
        print("  first failure: \(error)")
    }
    print("rules-throughput: \(last.failures) employee-months failed; the figure above is not valid")
    exit(1)
}
