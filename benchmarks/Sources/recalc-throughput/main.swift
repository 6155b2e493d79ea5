// Recalculation throughput: `employee.recalc` jobs (one employee-month, ~22 shifts each) from the
// queue to replaced payslips, on a real server.
//
//   swift run -c release --package-path benchmarks recalc-throughput --database-url URL \
//       [--employees N] [--rounds R] [--threads T] [--batch B] [--keep-database]
//
// --rounds 0 measures only the month-end; --keep-database leaves the database for inspection.
//
// URL names a server where the user may CREATE DATABASE (e.g. the URL `ops/pg start` prints); a
// fresh database `payrun_bench_recalc_<pid>` is created, migrated, seeded and dropped.
//
// 1. seed: the demo employer with N employees (DemoEmployer: SyntheticWorkforce, October 2026).
// 2. month-end: schedule, plan and compute the runs (so recalculations replace existing payslips
//    of a calculated run: totals moved by difference, digest marked stale).
// 3. R rounds: enqueue one recalculation per employee with `payrun.enqueue_recalculation` (one
//    transaction per 1,000), then T threads — each its own connection, like the worker's job
//    threads — claim batches of B and, per job, in ONE transaction: set the tenant,
//    `Recalculation.run` (find the run, load by COPY, validate, compute, COPY to staging, replace
//    the payslip, move the run totals) and `JobQueue.complete` (fenced by the lease). Reported:
//    jobs/s from the first claim to the last completion. (The WorkerPool adds heartbeats and
//    NOTIFY wake-ups on other threads; the per-job work is this.)
import Dispatch
import Foundation
import JobQueue
import PayrollStore
import PayrunWorker
import PostgresClient
import Synchronization

var databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"]
var employees = 2_000
var rounds = 3
var threads = 2
var batch = 32
var keepDatabase = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--database-url": databaseURL = arguments.next()
    case "--employees": employees = Int(arguments.next() ?? "") ?? employees
    case "--rounds": rounds = Int(arguments.next() ?? "") ?? rounds
    case "--threads": threads = Int(arguments.next() ?? "") ?? threads
    case "--batch": batch = Int(arguments.next() ?? "") ?? batch
    case "--keep-database": keepDatabase = true
    default:
        print("usage: recalc-throughput --database-url URL [--employees N] [--rounds R] [--threads T] [--batch B] [--keep-database]")
        exit(2)
    }
}
guard let serverURL = databaseURL else {
    print("recalc-throughput: pass --database-url (or set DATABASE_URL), e.g. the URL `ops/pg start` prints")
    exit(2)
}


func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

let options = (serverURL: serverURL, employees: employees, rounds: rounds, threads: threads, batch: batch, keep: keepDatabase)
try runBenchmark(serverURL: options.serverURL, employees: options.employees, rounds: options.rounds, threads: options.threads,
                 batch: options.batch, keepDatabase: options.keep)

func runBenchmark(serverURL: String, employees: Int, rounds: Int, threads: Int, batch: Int, keepDatabase: Bool) throws {
    let name = "payrun_bench_recalc_\(getpid())"
    let admin = try PostgresConnection(url: serverURL)
    try admin.execute("CREATE DATABASE \(name)")
    defer {
        if keepDatabase { print("kept database \(name)") } else { _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }
    let benchURL = PostgresConnectionString.replacingDatabase(in: serverURL, with: name)
    let connection = try PostgresConnection(url: benchURL)
    try Migrator().migrate(connection)

    let perWorkplace = min(999, employees)
    let workplaces = (employees + perWorkplace - 1) / perWorkplace
    let employer = DemoEmployer(tenantId: 1, workplaces: workplaces, employeesPerWorkplace: perWorkplace)
    let clock = ContinuousClock()
    var t0 = clock.now
    try employer.seed(on: connection)
    let shiftCount = try connection.queryOne("SELECT count(*) FROM payrun.shifts")?.int64(at: 0) ?? 0
    let employeeIds = try connection.query("SELECT id FROM payrun.employees ORDER BY id").map { try $0.int64(at: 0) }
    print(String(format: "seed: %d employees, %d shifts (%.1f per employee) in %.2f s", employeeIds.count, shiftCount,
                 Double(shiftCount) / Double(max(1, employeeIds.count)), seconds(clock.now - t0)))

    /// T threads claim and run jobs until none is left; returns (jobs, seconds).
    func drain(kinds: [String], batch: Int = batch, _ work: @escaping @Sendable (ClaimedJob, PostgresConnection) throws -> Void) throws -> (Int, Double) {
        let done = Atomic<Int>(0)
        let claimTime = Mutex<Duration>(.zero)
        defer { print("  (claims took \(claimTime.withLock { $0 }) over \(threads) threads)") }
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let start = ContinuousClock.now
        for index in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let own = try PostgresConnection(url: benchURL)
                    while true {
                        let claimStart = ContinuousClock.now
                        let jobs = try JobQueue.claim(on: own, workerId: "bench-\(index)", limit: batch, leaseSeconds: 60, kinds: kinds)
                        claimTime.withLock { $0 += ContinuousClock.now - claimStart }
                        if jobs.isEmpty { break }
                        for job in jobs {
                            try work(job, own)
                            done.add(1, ordering: .relaxed)
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        let elapsed = seconds(ContinuousClock.now - start)
        if let first = failures.withLock({ $0.first }) { print("error: \(first)"); exit(1) }
        return (done.load(ordering: .relaxed), elapsed)
    }

    @Sendable func payloadInt(_ job: ClaimedJob, _ key: String) -> Int64 {
        guard let range = job.payload.range(of: "\"\(key)\":") else { return -1 }
        let digits = job.payload[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber || $0 == "-" }
        return Int64(digits) ?? -1
    }

    // 2. Month-end.
    t0 = clock.now
    _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: connection)
    _ = try drain(kinds: ["run.plan"]) { job, c in
        try c.transaction { c in
            try TenantScope.set(job.tenantId, on: c)
            _ = try RunPlanner.plan(tenantId: job.tenantId, runId: payloadInt(job, "runId"), on: c)
            try JobQueue.complete(job, on: c)
        }
    }
    // One chunk job per claim (as the worker's job threads take them): a batch would hand every
    // chunk to the first thread.
    let (chunkJobs, chunkSeconds) = try drain(kinds: ["run.chunk"], batch: 1) { job, c in
        guard let key = StagingKey(uuid: job.leaseToken) else { throw PayrollStoreError(.invalidRequest, "lease token") }
        let started = ContinuousClock.now
        let (outcome, phasesEnd) = try c.transaction { c in
            try TenantScope.set(job.tenantId, on: c)
            let outcome = try ChunkProcessor.process(
                tenantId: job.tenantId, runId: payloadInt(job, "runId"), version: Int32(payloadInt(job, "version")),
                chunkNo: Int32(payloadInt(job, "chunk")), from: payloadInt(job, "from"), to: payloadInt(job, "to"),
                stagingKey: key, on: c)
            let phasesEnd = ContinuousClock.now
            try JobQueue.complete(job, on: c)
            return (outcome, phasesEnd)
        }
        // commit = job completion + COMMIT (durable: waits for the WAL flush).
        let commitMs = (ContinuousClock.now - phasesEnd).components.attoseconds / 1_000_000_000_000_000
            + (ContinuousClock.now - phasesEnd).components.seconds * 1000
        let totalMs = (ContinuousClock.now - started).components.attoseconds / 1_000_000_000_000_000
            + (ContinuousClock.now - started).components.seconds * 1000
        print("  chunk \(payloadInt(job, "chunk")) of run \(payloadInt(job, "runId")): \(outcome.employees) employees, \(outcome.timings.summary) commit=\(commitMs)ms total=\(totalMs)ms")
    }
    print(String(format: "month-end: %d chunk jobs, %d employees in %.2f s (serial calculator per chunk, %d threads) = %.0f employees/s",
                 chunkJobs, employeeIds.count, chunkSeconds, threads, Double(employeeIds.count) / chunkSeconds))
    // Phase totals as stored by the chunks (run_chunks, migration 0010).
    if let p = try connection.queryOne("""
        SELECT sum(load_us)::bigint, sum(compute_us)::bigint, sum(write_us)::bigint, sum(finish_us)::bigint,
               sum(shifts_loaded)::bigint, count(*) FROM payrun.run_chunks
        """) {
        print(String(format: "phases over %d chunks (ms, summed over threads): load %.0f, compute %.0f, write %.0f, finish %.0f; %d shifts loaded",
                     try p.int64(at: 5), Double(try p.int64(at: 0)) / 1e3, Double(try p.int64(at: 1)) / 1e3,
                     Double(try p.int64(at: 2)) / 1e3, Double(try p.int64(at: 3)) / 1e3, try p.int64(at: 4)))
    }

    // 3. Recalculation rounds.
    var rates: [Double] = []
    for round in 1...max(1, rounds) where rounds > 0 {
        var index = 0
        while index < employeeIds.count {
            let slice = employeeIds[index..<min(index + 1_000, employeeIds.count)]
            try connection.transaction { c in
                try TenantScope.set(1, on: c)
                for id in slice {
                    try c.execute("SELECT payrun.enqueue_recalculation(1, $1, '2026-10-01', 'benchmark')", [.int(id)])
                }
            }
            index += 1_000
        }
        let (jobs, elapsed) = try drain(kinds: ["employee.recalc"]) { job, c in
            guard let key = StagingKey(uuid: job.leaseToken) else { throw PayrollStoreError(.invalidRequest, "lease token") }
            try c.transaction { c in
                try TenantScope.set(job.tenantId, on: c)
                let outcome = try Recalculation.run(tenantId: job.tenantId, employeeId: payloadInt(job, "employeeId"),
                                                    periodStart: employer.workforce.periodStart, stagingKey: key, on: c)
                guard case .replaced = outcome else { throw PayrollStoreError(.invalidState, "unexpected \(outcome)") }
                try JobQueue.complete(job, on: c)
            }
        }
        rates.append(Double(jobs) / elapsed)
        print(String(format: "round %d: %d recalculation jobs, %d threads, batch %d: %.2f s = %.0f jobs/s", round, jobs, threads, batch,
                     elapsed, Double(jobs) / elapsed))
    }
    let revisions = try connection.queryOne("SELECT min(revision), max(revision), count(*) FROM payrun.payslips")
    print("payslips: \(try revisions?.int64(at: 2) ?? 0), revisions \(try revisions?.int32(at: 0) ?? 0)…\(try revisions?.int32(at: 1) ?? 0)")
    print(String(format: "best round: %.0f jobs/s", rates.max() ?? 0))
    connection.close()

}
