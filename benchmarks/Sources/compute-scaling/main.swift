// Compute scaling on inputs loaded from a seeded store, the way `payrun bench` measures it
// (Sources/payrun/Bench/ComputeScaling.swift), but loaded once and timed many times, with knobs
// to find what keeps two threads from doing twice the work of one:
//
//   compute-scaling --database-url URL [--sample N] [--threads T] [--repeat R]
//                   [--only P] [--private-calendars] [--synthetic] [--encode] [--digest] [--legacy] [--compare-legacy] [--slice-costs] [--per-chunk]
//                   [--job-size N]
//
// The store must hold a planned month-end (`payrun bench` leaves `payrun.run_chunks` behind).
// Each repetition times `BatchCalculator.calculate` at parallelism 1 and T alternately (best of
// each counts, wall and process CPU). `--only P` times only parallelism P (for `perf record`).
// `--private-calendars` gives every input its own copy of its workplace calendar (nothing shared
// between the inputs of a chunk); `--synthetic` uses `SyntheticWorkforce` inputs instead (as
// rules-throughput). `--encode` also times the JSON encoding of the payslip lines
// (`CalcResponseEncoder`, what `PayslipJSON` does per stored payslip). `--digest` prints an FNV-1a
// digest of every output byte so that an optimisation can be checked to change nothing.
// `--legacy` times the parallel side with the partition BatchCalculator had before;
// `--compare-legacy` times both, interleaved (1, T, T legacy, 1, …) for an A/B in one process.
// `--slice-costs` measures each slice alone and prints the speed-up each partition allows.
// `--per-chunk` calls the calculator once per run of inputs sharing a calendar (a chunk job).
// `--job-size N` calls it once per N consecutive inputs (a packed chunk job of the month-end,
// ≈ 1,700 employees at 100k: the call size the per-job figure of `payrun bench` times).
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
var comparesLegacy = false
var printsSliceCosts = false
var perChunk = false
var jobSize: Int?
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
    case "--compare-legacy": comparesLegacy = true
    case "--slice-costs": printsSliceCosts = true
    case "--per-chunk": perChunk = true
    case "--job-size": jobSize = Int(arguments.next() ?? "").flatMap { $0 > 0 ? $0 : nil }
    default:
        print("usage: compute-scaling --database-url URL [--sample N] [--threads T] [--repeat R] [--only P] [--private-calendars] [--synthetic] [--encode] [--digest] [--legacy] [--compare-legacy] [--slice-costs] [--per-chunk] [--job-size N]")
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

/// `--per-chunk`: the batch cut where the workplace calendar changes (one loaded chunk each), as
/// the worker computes a chunk job: every call's inputs share one calendar.
func chunkBounds(of inputs: [PayrollInput]) -> [Range<Int>] {
    var bounds: [Range<Int>] = []
    var lower = 0
    func identity(_ i: Int) -> UnsafeRawPointer? {
        inputs[i].workplace.holidays?.entries.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }
    for i in inputs.indices.dropFirst() where identity(i) != identity(i - 1) {
        bounds.append(lower..<i)
        lower = i
    }
    if lower < inputs.count { bounds.append(lower..<inputs.count) }
    return bounds
}
let chunks = jobSize.map { n in stride(from: 0, to: inputs.count, by: n).map { $0..<min(inputs.count, $0 + n) } }
    ?? chunkBounds(of: inputs)

/// The calls' inputs, cut before any timing: copying a call's inputs out of the sample (a retain of
/// each of their arrays) and joining the calls' results are not the calculator's work, and timed
/// on one thread they had lowered the per-call speed-up (1,700-input calls: 1.35–1.65×).
let batches: [[PayrollInput]] = perChunk || jobSize != nil ? chunks.map { Array(inputs[$0]) } : [inputs]

/// One result array per call; joined by the caller after its clock stops.
@MainActor func calculate(_ parallelism: Int) -> [[Result<Payslip, PayrollError>]] {
    func one(_ batch: [PayrollInput]) -> [Result<Payslip, PayrollError>] {
        // A negative parallelism is the legacy partition at that many workers (`--compare-legacy`).
        parallelism < 0 ? legacyCalculate(batch, parallelism: -parallelism)
            : legacy && parallelism > 1 ? legacyCalculate(batch, parallelism: parallelism)
            : BatchCalculator.calculate(batch, parallelism: parallelism)
    }
    return batches.map(one)
}

@MainActor func timed(_ parallelism: Int) -> (Timing, [Result<Payslip, PayrollError>]) {
    let start = ContinuousClock.now, cpu0 = cpuSeconds()
    let calls = calculate(parallelism)
    let d = start.duration(to: .now), cpu1 = cpuSeconds()
    let results = calls.count == 1 ? calls[0] : calls.flatMap { $0 }
    var encodeWall = 0.0, encodeCPU = 0.0
    if encodes {
        let e0 = ContinuousClock.now, cpu2 = cpuSeconds()
        precondition(encodeAll(results) > 0)
        let ed = e0.duration(to: .now)
        encodeWall = Double(ed.components.seconds) + Double(ed.components.attoseconds) / 1e18
        encodeCPU = cpuSeconds() - cpu2
    }
    return (Timing(wall: Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18, cpu: cpu1 - cpu0,
                   encodeWall: encodeWall, encodeCPU: encodeCPU), results)
}

/// `--slice-costs`: the thread-CPU time of each slice computed alone on one thread (best of 3),
/// for the legacy partition (4 slices per worker) and for slices of about the engine's slice length
/// (`BatchCalculator.sliceEmployees`), and the wall time T workers would need taking the slices in
/// index order, each the next free one (what the engine's workers do): the speed-up the partition
/// allows with no interference at all.
@MainActor func sliceCostReport(slices: Int, workers: Int) -> String {
    let count = inputs.count
    var costs: [Double] = []
    for slice in 0..<slices {
        let lower = count * slice / slices, upper = count * (slice + 1) / slices
        var best = Double.infinity
        for _ in 0..<3 {
            var t0 = timespec(), t1 = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0)
            let r = BatchCalculator.calculate(Array(inputs[lower..<upper]), parallelism: 1)
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1)
            precondition(r.count == upper - lower)
            best = min(best, Double(t1.tv_sec - t0.tv_sec) + Double(t1.tv_nsec - t0.tv_nsec) / 1e9)
        }
        costs.append(best)
    }
    var free = [Double](repeating: 0, count: workers)
    for c in costs {
        let k = free.indices.min { free[$0] < free[$1] } ?? 0
        free[k] += c
    }
    let total = costs.reduce(0, +), makespan = free.max() ?? 0
    let sorted = costs.sorted()
    return String(format: "%d slices: cost min %.1f / median %.1f / max %.1f ms; one thread %.3f s, %d workers %.3f s → at most %.2f×",
                  slices, (sorted.first ?? 0) * 1e3, sorted[sorted.count / 2] * 1e3, (sorted.last ?? 0) * 1e3,
                  total, workers, makespan, total / makespan)
}

print("compute-scaling: \(inputs.count) inputs (\(synthetic ? "synthetic" : "loaded")\(privateCalendars ? ", private calendars" : "")\(perChunk || jobSize != nil ? ", \(chunks.count) calls, \(jobSize.map { "\($0) inputs each" } ?? "one per calendar")" : "")), \(shiftCount) shifts, threads \(threads), repeat \(repetitions)")
if printsSliceCosts {
    print("  " + sliceCostReport(slices: threads * 4, workers: threads))
    let slice = BatchCalculator.sliceEmployees
    print("  " + sliceCostReport(slices: (inputs.count + slice - 1) / slice, workers: threads))
    exit(0)
}
let sides = only.map { [$0] } ?? ([1, threads] + (comparesLegacy ? [-threads] : []))
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
    var line = String(format: p < 0 ? "  parallelism %d (legacy partition): best %.3f s = %.0f employees/s; CPU %.3f s = %.2f µs/employee"
                                     : "  parallelism %d: best %.3f s = %.0f employees/s; CPU %.3f s = %.2f µs/employee",
                      abs(p), t.wall, n / t.wall, t.cpu, t.cpu / n * 1e6)
    if encodes { line += String(format: "; encode %.3f s wall, %.2f µs CPU/employee", t.encodeWall, t.encodeCPU / n * 1e6) }
    print(line)
}
if only == nil, let one = best[1], let all = best[threads] {
    print(String(format: "  speed-up %.2f× (wall), CPU ratio %.2f", one.wall / all.wall, all.cpu / one.cpu))
    if let old = best[-threads] {
        print(String(format: "  legacy partition: speed-up %.2f× (wall), CPU ratio %.2f", one.wall / old.wall, old.cpu / one.cpu))
    }
}
var failures = 0
var net: Int64 = 0
for r in lastResults { if case .success(let p) = r { net &+= p.net } else { failures += 1 } }
print("  checksum: net=\(net) failures=\(failures)")
if printsDigest { print("  digest: \(String(digest(lastResults), radix: 16))") }
