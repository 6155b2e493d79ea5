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
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--employees": employees = Int(arguments.next() ?? "") ?? employees
    case "--threads": threads = Int(arguments.next() ?? "") ?? threads
    case "--repeat": repetitions = Int(arguments.next() ?? "") ?? repetitions
    default:
        print("usage: rules-throughput [--employees N] [--threads T] [--repeat R]")
        exit(2)
    }
}

let workforce = SyntheticWorkforce(seed: 2026, year: 2026, month: 10)
let inputs = (0..<employees).map { workforce.employee($0) }
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

let clock = ContinuousClock()
var seconds: [Double] = []
var last: (net: Int64, methodBytes: Int, failures: Int) = (0, 0, 0)
for _ in 0..<repetitions {
    let start = clock.now
    let results = BatchCalculator.calculate(inputs, parallelism: threads)
    let elapsed = clock.now - start
    seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    last = checksum(results)
}
seconds.sort()
let best = seconds.first!, median = seconds[seconds.count / 2]
let employeeCount = employees
func rate(_ s: Double) -> String { String(Int((Double(employeeCount) / s).rounded())) }
print("rules-throughput: employees=\(employees) shifts=\(shiftCount) (\(String(format: "%.1f", Double(shiftCount) / Double(employees))) per employee) threads=\(threads) repetitions=\(repetitions)")
print("  best   \(String(format: "%.3f", best)) s  → \(rate(best)) employee-months/s")
print("  median \(String(format: "%.3f", median)) s  → \(rate(median)) employee-months/s")
print("  checksum: net=\(last.net) methodBytes=\(last.methodBytes) failures=\(last.failures)")
if last.failures > 0 {
    if case .failure(let error)? = BatchCalculator.calculate(inputs, parallelism: 1).first(where: { if case .failure = $0 { true } else { false } }) {
        print("  first failure: \(error)")
    }
    print("rules-throughput: \(last.failures) employee-months failed; the figure above is not valid")
    exit(1)
}
