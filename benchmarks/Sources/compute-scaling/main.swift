// Compute scaling on inputs loaded from a seeded store, the way `payrun bench` measures it
// (Sources/payrun/Bench/ComputeScaling.swift), but loaded once and timed many times, with knobs
// to find what keeps two threads from doing twice the work of one:
//
//   compute-scaling --database-url URL [--sample N] [--threads T] [--repeat R]
//                   [--only P] [--private-calendars] [--synthetic] [--encode] [--digest] [--legacy]
//
// The store must hold a planned month-end (`payrun bench` leaves `payrun.run_chunks` behind).
// Each repetition times `BatchCalculator.calculate` at parallelism 1 and T alternately (best of
// each counts, wall and process CPU). `--only P` times only parallelism P (for `perf record`).
// `--private-calendars` gives every input its own copy of its workplace calendar (nothing shared
// between the inputs of a chunk); `--synthetic` uses `SyntheticWorkforce` inputs instead (as
// rules-throughput). `--encode` also times the JSON encoding of the payslip lines
// (`CalcResponseEncoder`, what `PayslipJSON` does per stored payslip). `--digest` prints an FNV-1a
// digest of every output byte so that an optimisation can be checked to change nothing.
// `--legacy` times the parallel side with the partition BatchCalculator had before (A/B).
import Dispatch
import Foundation
import PayrollEngine
import PayrollRules
import PayrollStore
import PostgresClient

var url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
var sample = 50_000
var threads = 2
var repetitions = 5
var only: Int?
var privateCalendars = false
var synthetic = false
var encodes = false
var printsDigest = false
var legacy = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--database-url": url = arguments.next() ?? url
    case "--sample": sample = Int(arguments.next() ?? "") ?? sample
    case "--threads": threads = Int(arguments.next() ?? "") ?? threads
    case "--repeat": repetitions = Int(arguments.next() ?? "") ?? repetitions
    case "--only": only = Int(arguments.next() ?? "")
    case "--private-calendars": privateCalendars = true
    case "--synthetic": synthetic = true
    case "--encode": encodes = true
    case "--digest": printsDigest = true
    case "--legacy": legacy = true
    default:
        print("usage: compute-scaling --database-url URL [--sample N] [--threads T] [--repeat R] [--only P] [--private-calendars] [--synthetic] [--encode] [--digest]")
        exit(2)
    }
}

func loadInputs(url: String, sample: Int) throws -> [PayrollInput] {
    let connection = try PostgresConnection(url: url)
    defer { connection.close() }
    let plan = try connection.query("""
        SELECT tenant_id, run_id, employee_id_from, employee_id_to FROM payrun.run_chunks ORDER BY tenant_id, run_id, chunk_no
        """).map { (try $0.int64(at: 0), try $0.int64(at: 1), try $0.int64(at: 2), try $0.int64(at: 3)) }
    var inputs: [PayrollInput] = []
    for (tenant, runId, from, to) in plan where inputs.count < sample {
        let chunk: LoadedChunk = try connection.transaction { c in
            try TenantScope.set(tenant, on: c)
            guard let run = try PayrollRun.fetch(tenantId: tenant, runId: runId, on: c) else {
                throw PayrollStoreError(.notFound, "run \(runId) vanished")
            }
            return try ChunkLoader.load(run: run, selection: .range(from: from, to: to), on: c)
        }
        for e in chunk.employees where inputs.count < sample {
            if case .success(let input) = e.input { inputs.append(input) }
        }
    }
    return inputs
}

var inputs: [PayrollInput]
if synthetic {
    let workforce = SyntheticWorkforce(seed: 2026, year: 2026, month: 10)
    inputs = (0..<sample).map { workforce.employee($0) }
} else {
    inputs = try loadInputs(url: url, sample: sample)
}
if privateCalendars {
    for i in inputs.indices {
        if let calendar = inputs[i].workplace.holidays { inputs[i].workplace.holidays = HolidayCalendar(calendar.entries.map { $0 }) }
    }
}
let shiftCount = inputs.reduce(0) { $0 + $1.shifts.count }

func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// The payslip lines as `PayslipJSON` encodes them; returns the bytes written (a checksum).
func encodeAll(_ results: [Result<Payslip, PayrollError>]) -> Int {
    var total = 0
    for r in results {
        guard case .success(let p) = r else { continue }
        var w = JSONWriter(capacity: 512)
        CalcResponseEncoder.write(p.earnings, to: &w)
        total += w.bytes.count
        var d = JSONWriter(capacity: 512)
        CalcResponseEncoder.write(p.deductions, to: &d)
        total += d.bytes.count
        var x = JSONWriter(capacity: 128)
        CalcResponseEncoder.write(p.warnings, to: &x)
        total += x.bytes.count
    }
    return total
}

func digest(_ results: [Result<Payslip, PayrollError>]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    func bytes(_ b: [UInt8]) { for c in b { h = (h ^ UInt64(c)) &* 0x100_0000_01b3 }; h = (h ^ 0xff) &* 0x100_0000_01b3 }
    for r in results {
        switch r {
        case .success(let p):
            var w = JSONWriter(capacity: 2048)
            CalcResponseEncoder.write(p, to: &w)
            bytes(w.bytes)
        case .failure(let e):
            bytes(Array(CalcResponseEncoder.encode(e).utf8))
        }
    }
    return h
}

/// `--legacy`: BatchCalculator's partition before the compute-speed branch (4 slices per worker,
/// every input computed as given, sharing its chunk's calendar), for A/B runs in one process.
func legacyCalculate(_ inputs: [PayrollInput], parallelism workers: Int) -> [Result<Payslip, PayrollError>] {
    let count = inputs.count
    let results = LegacySlots(count: count)
    let slices = min(count, workers * 4)
    DispatchQueue.concurrentPerform(iterations: slices) { slice in
        let lower = count * slice / slices
        let upper = count * (slice + 1) / slices
        for i in lower..<upper {
            let r: Result<Payslip, PayrollError>
            do throws(PayrollError) { r = .success(try PayrollCalculator.calculate(inputs[i])) } catch { r = .failure(error) }
            (results.base + i).initialize(to: r)
        }
    }
    return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
        if let target = buffer.baseAddress { target.moveInitialize(from: results.base, count: count) }
        initialized = count
    }
}

/// Disjoint-index result buffer (as the engine's ResultSlots); its elements are moved out.
final class LegacySlots: @unchecked Sendable {
    let base: UnsafeMutablePointer<Result<Payslip, PayrollError>>
    init(count: Int) { base = .allocate(capacity: count) }
    deinit { base.deallocate() }
}

struct Timing { var wall: Double; var cpu: Double; var encodeWall: Double; var encodeCPU: Double }

@MainActor func timed(_ parallelism: Int) -> (Timing, [Result<Payslip, PayrollError>]) {
    let start = ContinuousClock.now, cpu0 = cpuSeconds()
    let results = legacy && parallelism > 1 ? legacyCalculate(inputs, parallelism: parallelism)
        : BatchCalculator.calculate(inputs, parallelism: parallelism)
    let d = start.duration(to: .now), cpu1 = cpuSeconds()
    var encodeWall = 0.0, encodeCPU = 0.0
    if encodes {
        let e0 = ContinuousClock.now
        precondition(encodeAll(results) > 0)
        let ed = e0.duration(to: .now)
        encodeWall = Double(ed.components.seconds) + Double(ed.components.attoseconds) / 1e18
        encodeCPU = cpuSeconds() - cpu1
    }
    return (Timing(wall: Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18, cpu: cpu1 - cpu0,
                   encodeWall: encodeWall, encodeCPU: encodeCPU), results)
}

print("compute-scaling: \(inputs.count) inputs (\(synthetic ? "synthetic" : "loaded")\(privateCalendars ? ", private calendars" : "")), \(shiftCount) shifts, threads \(threads), repeat \(repetitions)")
let sides = only.map { [$0] } ?? [1, threads]
var best: [Int: Timing] = [:]
var lastResults: [Result<Payslip, PayrollError>] = []
for _ in 0..<repetitions {
    for p in sides {
        let (t, results) = timed(p)
        if let b = best[p] {
            best[p] = Timing(wall: min(b.wall, t.wall), cpu: min(b.cpu, t.cpu), encodeWall: min(b.encodeWall, t.encodeWall),
                             encodeCPU: min(b.encodeCPU, t.encodeCPU))
        } else {
            best[p] = t
        }
        lastResults = results
    }
}
let n = Double(inputs.count)
for p in sides {
    guard let t = best[p] else { continue }
    var line = String(format: "  parallelism %d: best %.3f s = %.0f employees/s; CPU %.3f s = %.2f µs/employee",
                      p, t.wall, n / t.wall, t.cpu, t.cpu / n * 1e6)
    if encodes { line += String(format: "; encode %.3f s wall, %.2f µs CPU/employee", t.encodeWall, t.encodeCPU / n * 1e6) }
    print(line)
}
if only == nil, let one = best[1], let all = best[threads] {
    print(String(format: "  speed-up %.2f× (wall), CPU ratio %.2f", one.wall / all.wall, all.cpu / one.cpu))
}
var failures = 0
var net: Int64 = 0
for r in lastResults { if case .success(let p) = r { net &+= p.net } else { failures += 1 } }
print("  checksum: net=\(net) failures=\(failures)")
if printsDigest { print("  digest: \(String(digest(lastResults), radix: 16))") }
