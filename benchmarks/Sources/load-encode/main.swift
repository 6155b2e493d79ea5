// The worker's client-side CPU per employee of a month-end, without the database writes: loads
// the chunks of a store's planned month-end the way a packed chunk job does
// (`ChunkLoader.loadParts` over parts of one tenant, up to `--chunk-size` employees per job),
// computes them (serially, as one calculator call per job), encodes the payslip lines with
// `PayslipJSON`, and frees the job's data. Each phase is timed in thread-CPU seconds:
//
//   load-encode --database-url URL [--jobs N] [--chunk-size C] [--repeat R] [--only load|all] [--digest] [--glue] [--rows]
//
// The store must hold a planned month-end (`payrun bench` leaves `payrun.run_chunks` behind).
// `load` includes reading the COPY data (libpq and decoding; not the server's work, which runs
// in its own process), building and validating inputs and their digests. `free` is dropping the
// loaded chunks and the computed payslips. `--only load` skips compute and encoding (for
// `perf stat` of the load alone). `--digest` prints an FNV-1a hash over every loaded employee
// (id, number, input digest, error) and every encoded line array, to check that a change to the
// loader or the encoder leaves every byte the same. `--glue` computes through
// `ChunkProcessor.computeParts` (what a packed chunk job does: the results as per-part payslip
// arrays, the inputs moved out of the loaded chunks as `processParts` does) instead of calling
// `BatchCalculator` on the inputs directly; its compute phase includes that glue. `--rows` (implies `--glue`) encodes each part's payslips as
// `PayslipWriter` encodes its direct COPY rows (every column, into a reused in-memory buffer)
// instead of the three line arrays alone; `--digest` then hashes those row bytes.
import Foundation
import PayrollEngine
import PayrollRules
import PayrollStore
import PostgresClient

var url = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
var jobLimit = Int.max
var chunkSize = 2_000
var repetitions = 3
var loadOnly = false
var printsDigest = false
var glue = false
var rows = false
/// `--rows`: the scratch buffer the payslips' COPY rows are encoded into.
let rowBuffer = BinaryCopyRowBuffer()
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--database-url": url = arguments.next() ?? url
    case "--jobs": jobLimit = Int(arguments.next() ?? "") ?? jobLimit
    case "--chunk-size": chunkSize = Int(arguments.next() ?? "") ?? chunkSize
    case "--repeat": repetitions = Int(arguments.next() ?? "") ?? repetitions
    case "--only": loadOnly = arguments.next() == "load"
    case "--digest": printsDigest = true
    case "--glue": glue = true
    case "--rows": glue = true; rows = true
    default:
        print("usage: load-encode --database-url URL [--jobs N] [--chunk-size C] [--repeat R] [--only load|all] [--digest] [--glue] [--rows]")
        exit(2)
    }
}

func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

struct Job { var tenantId: Int64; var parts: [(runId: Int64, from: Int64, to: Int64)] }

let connection = try PostgresConnection(url: url)
defer { connection.close() }

// The plan, packed per tenant into jobs of at most `chunkSize` planned employees (as RunPlanner.planMany packs).
var jobs: [Job] = []
var jobPlanned: [Int] = []
for row in try connection.query("""
    SELECT tenant_id, run_id, employee_id_from, employee_id_to, employees_planned FROM payrun.run_chunks
     ORDER BY tenant_id, employee_id_from
    """) {
    let tenant = try row.int64(at: 0), planned = Int(try row.int64(at: 4))
    let part = (runId: try row.int64(at: 1), from: try row.int64(at: 2), to: try row.int64(at: 3))
    if var last = jobs.last, last.tenantId == tenant, last.parts.count < 64,
       jobPlanned[jobs.count - 1] + planned <= chunkSize {
        last.parts.append(part)
        jobs[jobs.count - 1] = last
        jobPlanned[jobs.count - 1] += planned
    } else {
        jobs.append(Job(tenantId: tenant, parts: [part]))
        jobPlanned.append(planned)
    }
}
jobs = Array(jobs.prefix(jobLimit))

struct Totals { var load = 0.0, compute = 0.0, encode = 0.0, free = 0.0, employees = 0, shifts = 0, encodedBytes = 0 }

var hash: UInt64 = 0xcbf2_9ce4_8422_2325
@MainActor func mix<C: Collection>(_ bytes: C) where C.Element == UInt8 {
    for c in bytes { hash = (hash ^ UInt64(c)) &* 0x100_0000_01b3 }
    hash = (hash ^ 0xff) &* 0x100_0000_01b3
}

@MainActor func runOnce(digest: Bool) throws -> Totals {
    var totals = Totals()
    for job in jobs {
        try connection.transaction { c in
            try TenantScope.set(job.tenantId, on: c)
            var selections: [ChunkLoader.PartSelection] = []
            for part in job.parts {
                guard let run = try PayrollRun.fetch(tenantId: job.tenantId, runId: part.runId, on: c) else {
                    throw PayrollStoreError(.notFound, "run \(part.runId) vanished")
                }
                selections.append(ChunkLoader.PartSelection(run: run, from: part.from, to: part.to))
            }
            var t0 = threadCPUSeconds()
            var chunks: [LoadedChunk]? = try ChunkLoader.loadParts(selections, on: c)
            var t1 = threadCPUSeconds()
            totals.load += t1 - t0
            let employees = chunks!.flatMap(\.employees)
            totals.employees += employees.count
            totals.shifts += chunks!.reduce(0) { $0 + $1.shiftsLoaded }
            if digest {
                for e in employees {
                    mix(withUnsafeBytes(of: e.employeeId.bigEndian) { Array($0) })
                    mix((e.employeeNumber ?? "-").utf8)
                    mix(e.inputDigest ?? [])
                    if case .failure(let error) = e.input { mix(CalcResponseEncoder.encode(error).utf8) }
                }
            }
            if loadOnly {
                t0 = threadCPUSeconds()
                chunks = nil
                _ = consume employees
                totals.free += threadCPUSeconds() - t0
                return
            }
            // The stored line arrays of one result (what PayslipWriter encodes), counted and mixed.
            @MainActor func encode(_ result: Result<Payslip, PayrollError>) {
                guard case .success(let slip) = result else { return }
                let e = PayslipJSON.earnings(slip.earnings)
                let d = PayslipJSON.deductions(slip.deductions)
                let w = PayslipJSON.warnings(slip.warnings)
                totals.encodedBytes += e.count + d.count + w.count
                if digest { mix(e); mix(d); mix(w) }
            }
            if glue {
                // What a packed chunk job does between loading and writing (ChunkProcessor's glue).
                t0 = threadCPUSeconds()
                // As `processParts` since session 8: the inputs moved out of the chunks, not copied.
                var computed: [[ComputedPayslip]]? = ChunkProcessor.computeParts(
                    takingInputsOf: &chunks!, calculate: { BatchCalculator.calculate($0, parallelism: 1) })
                t1 = threadCPUSeconds()
                totals.compute += t1 - t0
                if rows {
                    for (i, part) in computed!.enumerated() {
                        PayslipWriter.encodeRows(part, run: chunks![i].run, into: rowBuffer)
                        totals.encodedBytes += rowBuffer.byteCount
                        if digest { mix(rowBuffer.bytes) }
                        rowBuffer.removeAll()
                    }
                } else {
                    for part in computed! {
                        for p in part { encode(p.result) }
                    }
                }
                let t2 = threadCPUSeconds()
                totals.encode += t2 - t1
                chunks = nil
                computed = nil
                _ = consume employees
                totals.free += threadCPUSeconds() - t2
                return
            }
            let inputs = employees.compactMap { try? $0.input.get() }
            t0 = threadCPUSeconds()
            var results: [Result<Payslip, PayrollError>]? = BatchCalculator.calculate(inputs, parallelism: 1)
            t1 = threadCPUSeconds()
            totals.compute += t1 - t0
            for r in results! { encode(r) }
            let t2 = threadCPUSeconds()
            totals.encode += t2 - t1
            chunks = nil
            results = nil
            _ = consume employees
            _ = consume inputs
            totals.free += threadCPUSeconds() - t2
        }
    }
    return totals
}

var best: Totals?
for r in 0..<repetitions {
    let t = try runOnce(digest: printsDigest && r == 0)
    if var b = best {
        b.load = min(b.load, t.load); b.compute = min(b.compute, t.compute)
        b.encode = min(b.encode, t.encode); b.free = min(b.free, t.free)
        best = b
    } else {
        best = t
    }
}
guard let b = best else { exit(0) }
let n = Double(max(b.employees, 1))
print("load-encode: \(jobs.count) jobs, \(b.employees) employees, \(b.shifts) shifts, repeat \(repetitions) (best of each phase, thread CPU)")
print(String(format: "  load    %.3f s = %.2f µs/employee", b.load, b.load / n * 1e6))
if !loadOnly {
    print(String(format: "  compute %.3f s = %.2f µs/employee", b.compute, b.compute / n * 1e6))
    print(String(format: "  encode  %.3f s = %.2f µs/employee (%d bytes)", b.encode, b.encode / n * 1e6, b.encodedBytes))
}
print(String(format: "  free    %.3f s = %.2f µs/employee", b.free, b.free / n * 1e6))
if printsDigest { print("  digest: \(String(hash, radix: 16))") }
