// Recalculation throughput: `employee.recalc` jobs (one employee-month, ~22 shifts each) from the
// queue to replaced payslips, on a real server.
//
//   swift run -c release --package-path benchmarks recalc-throughput --database-url URL \
//       [--employees N] [--rounds R] [--threads T] [--batch B] [--mode pool|single] [--keep-database]
//
// --rounds 0 measures only the month-end; --keep-database leaves the database for inspection.
//
// URL names a server where the user may CREATE DATABASE (e.g. the URL `ops/pg start` prints); a
// fresh database `payrun_bench_recalc_<pid>` is created, migrated, seeded and dropped.
//
// 1. seed: the demo employer with N employees (DemoEmployer: SyntheticWorkforce, October 2026).
// 2. month-end: schedule the runs, then a real `WorkerPool` with the worker's handlers plans and
//    computes them (one plan job per tenant, packed chunk jobs), so recalculations replace existing
//    payslips of a calculated run: totals moved by difference, digest marked stale.
// 3. R rounds: enqueue one recalculation per employee with `payrun.enqueue_recalculation` (one
//    transaction per 1,000), then process them:
//    --mode pool (default): a real `WorkerPool` with T job threads and the worker's
//      `employee.recalc` handler batching up to B jobs of a tenant per transaction
//      (`RecalcJobHandler.handleBatch` → `BatchRecalculation`, one fenced completion per batch),
//      with its claimer, heartbeats and NOTIFY wake-ups. Timed from starting the pool until no
//      recalculation job is pending or running (a probe connection polls every 20 ms).
//    --mode single: the one-job-per-transaction path: T threads — each its own connection —
//      claim batches of B and, per job, in ONE transaction: set the tenant, `Recalculation.run`
//      and `JobQueue.complete`. Timed from the first claim to the last completion.
//    After each round every payslip must have moved to the next revision.
import Dispatch
import Foundation
import JobQueue
import Logging
import PayrollStore
import PayrunWorker
import PostgresClient
import Synchronization

var databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"]
var employees = 2_000
var rounds = 3
var threads = 2
var batch = 64
var mode = "pool"
var keepDatabase = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--database-url": databaseURL = arguments.next()
    case "--employees": employees = Int(arguments.next() ?? "") ?? employees
    case "--rounds": rounds = Int(arguments.next() ?? "") ?? rounds
    case "--threads": threads = Int(arguments.next() ?? "") ?? threads
    case "--batch": batch = Int(arguments.next() ?? "") ?? batch
    case "--mode": mode = arguments.next() ?? mode
    case "--keep-database": keepDatabase = true
    default:
        print("usage: recalc-throughput --database-url URL [--employees N] [--rounds R] [--threads T] [--batch B] [--mode pool|single] [--keep-database]")
        exit(2)
    }
}
guard let serverURL = databaseURL else {
    print("recalc-throughput: pass --database-url (or set DATABASE_URL), e.g. the URL `ops/pg start` prints")
    exit(2)
}


/// CPU seconds used so far by this process (user + system).
func clientCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// CPU seconds used so far by a local server: the postmaster, its live children, and the children
/// it has reaped (`cutime`/`cstime` of the postmaster), from /proc. nil when /proc cannot tell.
func serverCPUSeconds(postmaster: Int32) -> Double? {
    func fields(_ pid: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")  // [0] = field 3 (state)
    }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    guard let own = fields(postmaster), own.count > 14 else { return nil }
    var total = (11...14).reduce(0.0) { $0 + (Double(own[$1]) ?? 0) }
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = Int32(entry), pid != postmaster, let f = fields(pid), f.count > 12, Int32(f[1]) == postmaster else { continue }
        total += (Double(f[11]) ?? 0) + (Double(f[12]) ?? 0)
    }
    return total / ticks
}

func postmasterPid(_ connection: PostgresConnection) -> Int32? {
    guard let backend = try? connection.queryOne("SELECT pg_backend_pid()")?.int(at: 0),
          let status = try? String(contentsOfFile: "/proc/\(backend)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }) else { return nil }
    return Int32(line.dropFirst(5).trimmingCharacters(in: .whitespaces))
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

guard mode == "pool" || mode == "single" else { print("recalc-throughput: --mode is pool or single"); exit(2) }
let options = (serverURL: serverURL, employees: employees, rounds: rounds, threads: threads, batch: batch, mode: mode, keep: keepDatabase)
try runBenchmark(serverURL: options.serverURL, employees: options.employees, rounds: options.rounds, threads: options.threads,
                 batch: options.batch, mode: options.mode, keepDatabase: options.keep)

func runBenchmark(serverURL: String, employees: Int, rounds: Int, threads: Int, batch: Int, mode: String, keepDatabase: Bool) throws {
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
                        if jobs.isEmpty {
                            // An empty claim can also mean the other thread's claim had the next
                            // job locked (SKIP LOCKED): stop only when none is pending.
                            let pending = try own.queryOne(
                                "SELECT count(*) FROM payrun.jobs WHERE state = 'pending' AND kind = ANY($1)",
                                [.textArray(kinds)])?.int64(at: 0) ?? 0
                            if pending == 0 { break }
                            continue
                        }
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

    /// A real WorkerPool (the worker's recalculation handler, batching up to `batch`) until every
    /// recalculation job is done; returns (jobs, seconds).
    func poolRound(expected: Int) throws -> (Int, Double) {
        try poolRun(expected: expected, handlers: [PayrollJobHandlers.recalculation(batchSize: batch)], kinds: ["employee.recalc"])
    }

    /// A real WorkerPool with `handlers` until no job of `kinds` is pending or running; returns (expected, seconds).
    func poolRun(expected: Int, handlers: [any JobHandler], kinds: [String]) throws -> (Int, Double) {
        var logger = Logger(label: "recalc-throughput")
        logger.logLevel = ProcessInfo.processInfo.environment["RECALC_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .error
        let configuration = WorkerConfiguration(databaseURL: benchURL, jobThreads: threads, claimBatchMax: 32, leaseSeconds: 30,
                                                heartbeatSeconds: 10, pollSeconds: 1, workerId: "bench")
        let pool = WorkerPool(configuration: configuration, handlers: handlers, logger: logger)
        let probe = try PostgresConnection(url: benchURL)
        defer { probe.close() }
        let stopped = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        Thread {
            do { try pool.run() } catch { print("error: worker pool: \(error)"); exit(1) }
            stopped.signal()
        }.start()
        while try probe.queryOne("SELECT count(*) FROM payrun.jobs WHERE state IN ('pending', 'running') AND kind = ANY($1)",
                                 [.textArray(kinds)])?.int64(at: 0) ?? 0 > 0 {
            usleep(20_000)
        }
        let elapsed = seconds(ContinuousClock.now - start)
        pool.stop()
        stopped.wait()
        let failed = try probe.queryOne("SELECT count(*) FROM payrun.jobs WHERE state <> 'succeeded' AND kind = ANY($1)",
                                        [.textArray(kinds)])?.int64(at: 0) ?? 0
        if failed > 0 { print("error: \(failed) jobs of \(kinds) did not succeed"); exit(1) }
        return (expected, elapsed)
    }

    // 2. Month-end: the worker's own handlers (one plan job per tenant, packed chunk jobs) in a WorkerPool.
    t0 = clock.now
    _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: connection)
    let (_, chunkSeconds) = try poolRun(expected: employeeIds.count, handlers: PayrollJobHandlers.all(), kinds: ["run.plan", "run.chunk"])
    let chunkJobs = try connection.queryOne("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.chunk'")?.int64(at: 0) ?? 0
    print(String(format: "month-end: %d chunk jobs, %d employees in %.2f s (WorkerPool, %d job threads) = %.0f employees/s",
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
        let postmaster = postmasterPid(connection)
        let cpuBefore = (client: clientCPUSeconds(), server: postmaster.flatMap(serverCPUSeconds))
        let (jobs, elapsed) = mode == "pool" ? try poolRound(expected: employeeIds.count) : try drain(kinds: ["employee.recalc"]) { job, c in
            try c.transaction { c in
                try TenantScope.set(job.tenantId, on: c)
                let outcome = try Recalculation.run(tenantId: job.tenantId, employeeId: payloadInt(job, "employeeId"),
                                                    periodStart: employer.workforce.periodStart, on: c)
                guard case .replaced = outcome else { throw PayrollStoreError(.invalidState, "unexpected \(outcome)") }
                try JobQueue.complete(job, on: c)
            }
        }
        rates.append(Double(jobs) / elapsed)
        let revisions = try connection.queryOne("SELECT min(revision), max(revision) FROM payrun.payslips")
        let (low, high) = (try revisions?.int32(at: 0) ?? 0, try revisions?.int32(at: 1) ?? 0)
        guard low == Int32(round + 1) && high == low else { print("error: after round \(round) payslip revisions are \(low)…\(high)"); exit(1) }
        print(String(format: "round %d (%@): %d recalculation jobs, %d threads, batch %d: %.2f s = %.0f jobs/s", round, mode, jobs, threads,
                     batch, elapsed, Double(jobs) / elapsed))
        // CPU per job (client + server), measured whatever else runs on the machine: with C cores and
        // nothing else running, jobs/s cannot exceed C / (CPU seconds per job).
        // (Pool mode only: in single mode the server figure came out implausibly low in long runs.)
        if mode == "pool", let before = cpuBefore.server, let after = postmaster.flatMap(serverCPUSeconds) {
            let clientMicros = (clientCPUSeconds() - cpuBefore.client) * 1e6 / Double(jobs)
            let serverMicros = (after - before) * 1e6 / Double(jobs)
            let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
            print(String(format: "  CPU per job: client %.0f µs + server %.0f µs ⇒ at most %.0f jobs/s on %.0f idle cores", clientMicros,
                         serverMicros, cores * 1e6 / (clientMicros + serverMicros), cores))
        }
    }
    let revisions = try connection.queryOne("SELECT min(revision), max(revision), count(*) FROM payrun.payslips")
    print("payslips: \(try revisions?.int64(at: 2) ?? 0), revisions \(try revisions?.int32(at: 0) ?? 0)…\(try revisions?.int32(at: 1) ?? 0)")
    print(String(format: "best round: %.0f jobs/s", rates.max() ?? 0))
    connection.close()

}
