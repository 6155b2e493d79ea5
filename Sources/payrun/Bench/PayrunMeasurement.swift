import Foundation
import Logging
import PayrollStore
import PayrunWorker
import PostgresClient

/// Step 1 of `payrun bench`: the real month-end path. An in-process `WorkerPool` with the real
/// handlers (N job threads, each its own connection) is started idle; the clock starts when
/// `RunScheduler.scheduleMonthEnd` schedules every tenant's runs and stops when every run is
/// calculated (read after each job the pool finishes, at least every 100 ms) and the WAL is
/// flushed past it (one synchronous commit). Peak RSS of the process is reset just before and read right
/// after.
struct PayrunMeasurement {
    var wallSeconds: Double
    var runs: Int
    var runsCalculated: Int
    var chunks: Int
    var employees: Int
    var employeesFailed: Int
    var payslips: Int
    /// Phases summed over chunks (seconds of thread time, not wall time).
    var phases: [String: Double]
    /// Which phases the run_chunks timing columns provided (false before migration 0010).
    var chunkTimingsAvailable: Bool
    var shiftsLoaded: Int?
    var claims: Int
    var jobsClaimed: Int
    var peakRSSKiB: Int?
    var peakRSSMethod: String
    /// The role the workers ran as (`--worker-role`; nil: the bench's own role), whether
    /// row-level security applied to it on `payslips`, and if so whether they COPYed payslips as
    /// `payrun_payslip_writer` (else they inserted them from column arrays: `PayslipWriter`).
    var workerRole: String? = nil
    var rowSecurityActive = false
    var copiesAsWriterRole = false

    /// The URL the workers connect with: `url`, or with `role` set at the session's start (libpq
    /// `options`, as `SET ROLE`), checked by connecting once.
    static func workerURL(_ url: String, role: String?) throws -> (url: String, rowSecurityActive: Bool, copiesAsWriterRole: Bool) {
        var workerURL = url
        if let role {
            guard let withRole = PostgresConnectionString.addingStartupSetting(in: url, name: "role", value: role) else {
                throw CommandFailure("--worker-role: '\(role)' is not a plain role name, or the database URL already sets libpq options as keyword/value (give it as a postgresql:// URI)")
            }
            workerURL = withRole
        }
        let check: PostgresConnection
        do { check = try PostgresConnection(url: workerURL) } catch {
            throw CommandFailure("the workers cannot connect\(role.map { " as role \($0)" } ?? ""): \(error)")
        }
        defer { check.close() }
        guard let row = try check.queryOne("SELECT current_user::text") else {
            throw CommandFailure("the workers' connection answered nothing")
        }
        if let role, try row.string(at: 0) != role {
            throw CommandFailure("--worker-role \(role): the workers' session runs as \(try row.string(at: 0))")
        }
        let path = try PayslipWriter.firstCalculationPath(on: check)
        return (workerURL, path.rowSecurityActive, path.asWriterRole)
    }

    /// One month-end on new workers, stopped afterwards (`payrun bench --cold`).
    static func run(url: String, threads: Int, chunkSize: Int, period: (year: Int, month: Int), workerRole: String? = nil,
                    progress: TerminalProgress, log: (String) -> Void = { _ in }) throws -> PayrunMeasurement {
        let workers = try BenchWorkers(url: url, threads: threads, chunkSize: chunkSize, workerRole: workerRole)
        defer { workers.stop() }
        return try run(url: url, workers: workers, period: period, progress: progress, log: log)
    }

    /// One month-end on `workers`, which stay running (idle) afterwards.
    static func run(url: String, workers: BenchWorkers, period: (year: Int, month: Int),
                    progress: TerminalProgress, log: (String) -> Void = { _ in }) throws -> PayrunMeasurement {
        let metrics = workers.metrics
        let before = metrics.timeTotals
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }

        let resetWorked = ProcessMemory.resetPeak()
        if let message = workers.failure.get() { throw CommandFailure(message) }

        let clock = ContinuousClock()
        let started = clock.now
        let scheduled = try RunScheduler.scheduleMonthEnd(year: period.year, month: period.month, on: connection)
        // Runs left by an earlier month-end would be found, not created, and nothing measured.
        guard scheduled.contains(where: \.created) else {
            throw CommandFailure("no month-end run was created for \(period.year)-\(period.month): the store already holds them")
        }
        var lastReport = started
        // After each job of the in-process pool finishes (else every 100 ms) the bench asks the
        // queue whether any job is left — the jobs table holds a few hundred rows. The runs table
        // (11,000 runs at 1,000,000 employees: 8 ms a read, ≈ 7 CPU-s of the server over a 1M
        // month-end when it was read at every poll) is read when no job is left, to confirm every
        // run is calculated, and at most once a second for the progress line. Polling every
        // 10 ms had taken ≈ 4 % of the server's CPU from the month-end it measures.
        var jobsSeen = -1
        var lastRead = started
        var lastRunsRead = started
        while true {
            let jobsFinished = metrics.timeTotals.jobs.values.reduce(0) { $0 + $1.count }
            if jobsFinished == jobsSeen && clock.now - lastRead < .milliseconds(100) {
                Thread.sleep(forTimeInterval: 0.005)
                continue
            }
            jobsSeen = jobsFinished
            lastRead = clock.now
            if let message = workers.failure.get() { throw CommandFailure(message) }
            let jobsLeft = try connection.queryOne(
                "SELECT count(*) FROM payrun.jobs WHERE state IN ('pending', 'running')")?.int64(at: 0) ?? 0
            let showProgress = clock.now - lastRunsRead > .seconds(1)
            if jobsLeft > 0 && !showProgress { continue }
            lastRunsRead = clock.now
            guard let row = try connection.queryOne("""
                SELECT count(*) FILTER (WHERE status IN ('calculated', 'calculated_with_errors')),
                       count(*) FILTER (WHERE status = 'failed'), count(*),
                       coalesce(sum(chunks_done), 0), coalesce(sum(chunks_total), 0),
                       coalesce(sum(employees_done), 0), coalesce(sum(employees_total), 0)
                  FROM payrun.payroll_runs
                """) else { break }
            let done = try row.int64(at: 0), failed = try row.int64(at: 1), total = try row.int64(at: 2)
            if failed > 0 { throw CommandFailure("\(failed) run(s) failed; see payrun.payroll_runs.error in the bench database") }
            if done == total { break }
            if jobsLeft == 0 {
                throw CommandFailure("no job is left in the queue but \(total - done) of \(total) runs are not calculated; see payrun.payroll_runs and payrun.jobs in the bench database")
            }
            if clock.now - lastReport > .milliseconds(200) {
                lastReport = clock.now
                progress.update("payrun: runs \(done)/\(total), chunks \(try row.int64(at: 3))/\(try row.int64(at: 4)), employees \(try row.int64(at: 5))/\(try row.int64(at: 6))")
            }
        }
        // The month-end is done when what it wrote is durable: chunk jobs commit without waiting
        // for the WAL flush (`ChunkCommit.async`), so the clock stops after one synchronous commit
        // (an xid of its own, hence a commit record) that flushes the WAL past the last of them.
        _ = try connection.execute("SELECT txid_current()")
        let wall = seconds(started.duration(to: clock.now))
        let peak = resetWorked ? ProcessMemory.peakKiB() : nil
        progress.finish()
        // A line of its own once the clock has stopped, so that per-line CPU accounting
        // (`benchmarks/phase-cpu.py`, `month-end-profile.py`) ends the month-end here: the summary
        // reads below (a scan of every payslip among them, ≈ 0.1 server CPU-s at 100k) are not its.
        log(String(format: "payrun month-end done in %.2f s; reading its totals…", wall))

        guard let counts = try connection.queryOne("""
            SELECT count(*), coalesce(sum(chunks_total), 0), coalesce(sum(employees_total), 0), coalesce(sum(employees_failed), 0),
                   (SELECT count(*) FROM payrun.payslips),
                   count(*) FILTER (WHERE status IN ('calculated', 'calculated_with_errors'))
              FROM payrun.payroll_runs
            """) else { throw CommandFailure("no runs") }
        var phases: [String: Double] = [:]
        let totals = metrics.timeTotals.since(before)
        phases["claim"] = seconds(totals.claims.total)
        let chunkJobSeconds = seconds(totals.jobs[PayrollJobKind.chunk]?.total ?? .zero)
        phases["plan"] = seconds(totals.jobs[PayrollJobKind.plan]?.total ?? .zero)
        let columns = Set(try connection.query("""
            SELECT column_name::text FROM information_schema.columns WHERE table_schema = 'payrun' AND table_name = 'run_chunks'
            """).map { try $0.string(at: 0) })
        let timed = ["load_us", "compute_us", "write_us", "finish_us"].allSatisfy(columns.contains)
        var shiftsLoaded: Int?
        if timed, let row = try connection.queryOne("""
            SELECT coalesce(sum(load_us), 0)::bigint, coalesce(sum(compute_us), 0)::bigint, coalesce(sum(write_us), 0)::bigint,
                   coalesce(sum(finish_us), 0)::bigint
                   \(columns.contains("shifts_loaded") ? ", coalesce(sum(shifts_loaded), 0)::bigint" : "")
              FROM payrun.run_chunks
            """) {
            let load = Double(try row.int64(at: 0)) / 1e6, compute = Double(try row.int64(at: 1)) / 1e6
            let write = Double(try row.int64(at: 2)) / 1e6, finish = Double(try row.int64(at: 3)) / 1e6
            phases["load"] = load
            phases["compute"] = compute
            phases["write"] = write
            // The rest of the chunk jobs' time: run bookkeeping, job completion, COMMIT, lease check.
            phases["commit"] = max(0, chunkJobSeconds - load - compute - write)
            phases["finish"] = finish
            if columns.contains("shifts_loaded") { shiftsLoaded = Int(try row.int64(at: 4)) }
        } else {
            phases["chunk_jobs"] = chunkJobSeconds
        }
        return PayrunMeasurement(
            wallSeconds: wall, runs: Int(try counts.int64(at: 0)), runsCalculated: Int(try counts.int64(at: 5)), chunks: Int(try counts.int64(at: 1)),
            employees: Int(try counts.int64(at: 2)), employeesFailed: Int(try counts.int64(at: 3)), payslips: Int(try counts.int64(at: 4)),
            phases: phases, chunkTimingsAvailable: timed, shiftsLoaded: shiftsLoaded, claims: totals.claims.count,
            jobsClaimed: totals.jobsClaimed, peakRSSKiB: peak,
            peakRSSMethod: resetWorked ? "VmHWM after /proc/self/clear_refs=5 (whole bench process)" : "unavailable",
            workerRole: workers.role, rowSecurityActive: workers.rowSecurityActive,
            copiesAsWriterRole: workers.copiesAsWriterRole)
    }
}

/// The month-end's workers: an in-process `WorkerPool` with the real handlers (`threads` job
/// threads, each its own connection), started idle. By default one set serves every month-end of
/// a store size, as a worker in production runs before and after a month-end: its sessions have
/// read the catalogs, compiled the trigger functions and planned the prepared statements, and its
/// backends have mapped the shared buffers (`payrun bench --cold` starts new ones each time).
/// Between month-ends it waits on the queue (a claim statement at most every second).
final class BenchWorkers: @unchecked Sendable {
    let metrics = WorkerMetrics()
    let failure = LockedBox<String?>(nil)
    let role: String?
    let rowSecurityActive: Bool
    let copiesAsWriterRole: Bool
    private let pool: WorkerPool
    private let stopped = DispatchSemaphore(value: 0)
    private var stoppedOnce = false

    init(url: String, threads: Int, chunkSize: Int, workerRole: String?) throws {
        setenv("PAYRUN_CHUNK_EMPLOYEES_MAX", String(chunkSize), 1)
        let workers = try PayrunMeasurement.workerURL(url, role: workerRole)
        role = workerRole
        rowSecurityActive = workers.rowSecurityActive
        copiesAsWriterRole = workers.copiesAsWriterRole
        var logger = Logger(label: "payrun.bench")
        logger.logLevel = .error
        let pool = WorkerPool(
            configuration: WorkerConfiguration(databaseURL: workers.url, jobThreads: threads, claimBatchMax: 32, leaseSeconds: 300,
                                               heartbeatSeconds: 20, pollSeconds: 1, workerId: "bench"),
            handlers: PayrollJobHandlers.all(), periodic: [], logger: logger, metrics: metrics)
        self.pool = pool
        let failure = self.failure, stopped = self.stopped
        let worker = Thread {
            do { try pool.run() } catch { failure.set("worker: \(error)") }
            stopped.signal()
        }
        worker.start()
        Thread.sleep(forTimeInterval: 0.3)  // job threads connected and idle
        if let message = failure.get() {
            stop()
            throw CommandFailure(message)
        }
    }

    /// Stops the pool and waits for it (once; later calls return at once).
    func stop() {
        guard !stoppedOnce else { return }
        stoppedOnce = true
        pool.stop()
        stopped.wait()
    }
}

extension WorkerTimeTotals {
    /// What was added since `earlier`, a snapshot of the same pool's totals.
    func since(_ earlier: WorkerTimeTotals) -> WorkerTimeTotals {
        var delta = self
        delta.claims.count -= earlier.claims.count
        delta.claims.total -= earlier.claims.total
        delta.jobsClaimed -= earlier.jobsClaimed
        for (kind, old) in earlier.jobs {
            delta.jobs[kind]?.count -= old.count
            delta.jobs[kind]?.total -= old.total
        }
        return delta
    }
}

/// A value shared between threads under a lock.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func get() -> T { lock.withLock { value } }
    func set(_ newValue: T) { lock.withLock { value = newValue } }
    func update(_ body: (inout T) -> Void) { lock.withLock { body(&value) } }
}
