import ArgumentParser
import Foundation
import JobQueue
import Logging
import PayrollRules
import PayrollStore
import PayrunWorker
import PostgresClient

/// `payrun bench queue`: the job queue's own speed — empty jobs/s and recalculation jobs/s with 1
/// and 2 threads, and the wake-up (claim) latency of an idle worker after an enqueue.
struct BenchQueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Job queue throughput (empty and recalculation jobs, 1 and 2 threads) and claim latency.",
        discussion: """
            Works in a fresh database payrun_bench_queue on the server (dropped at the
            end).
              empty jobs: --jobs jobs of a kind no handler serves, enqueued in batches
                of 1,000, then T threads (own connections) claim --batch and complete
                them until none is left: jobs/s from the first claim to the last
                completion, for T = 1 and 2;
              latency: an idle claimer LISTENs; one job at a time is enqueued and the
                time from its commit to the claim is recorded (--latency-samples): p50,
                p90, p99, max;
              recalculation jobs: a store of --employees employees (StoreSeeder) gets
                its month-end computed, then one recalculation per employee is enqueued
                (payrun.enqueue_recalculation) and a WorkerPool with the real handlers
                and T job threads runs until the queue is empty: recalculations/s, for
                T = 1 and 2.
            """)

    @OptionGroup var server: BenchServerOptions
    @Option(help: "Empty jobs per measurement.") var jobs: Int = 100_000
    @Option(help: "Jobs claimed per claim statement (empty jobs).") var batch: Int = 100
    @Option(help: "Tenants of the store (the empty jobs are spread over them too).") var tenants: Int = 10
    @Option(name: .customLong("latency-samples"), help: "Enqueue→claim samples.") var latencySamples: Int = 200
    @Option(help: "Employees of the recalculation store.") var employees: Int = 2_000
    @Option(help: "Seed of the recalculation store.") var seed: UInt64 = 1
    @Flag(help: "Print one JSON object instead of text.") var json = false

    func validate() throws {
        guard jobs >= 1, batch >= 1, tenants >= 1, latencySamples >= 1, employees >= 1 else {
            throw ValidationError("--jobs, --batch, --tenants, --latency-samples and --employees must be ≥ 1")
        }
    }

    func run() throws {
        func log(_ text: String) { StandardStreams.writeError(text + "\n") }
        let progress = TerminalProgress()
        let bench = try BenchServer.open(databaseURL: server.databaseURL, keepCluster: server.keepCluster, log: log)
        defer { bench.close(log: log) }
        let machine = MachineInfo.current(repository: BaselineMeasurement.locate().map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().deletingLastPathComponent().path
        })
        let name = "payrun_bench_queue"
        let admin = try PostgresConnection(url: bench.adminURL)
        defer { admin.close() }
        try admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try admin.execute("CREATE DATABASE \(name)")
        defer { _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
        let url = bench.url(database: name)
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try Migrator().migrate(connection)

        // Recalculation store first: its tenants are the ones the empty jobs use too.
        guard let period = LocalDate(year: 2026, month: 10, day: 1) else { throw CommandFailure("bad period") }
        let spec = SeedSpec(tenants: min(tenants, employees), employees: employees, seed: seed, period: period)
        log("seeding \(employees) employees for the recalculation jobs…")
        let summary = try StoreSeeder.seed(spec, on: connection)
        try connection.execute("VACUUM ANALYZE")
        let tenantIds = summary.tenantIds
        let threadCounts = [1, 2]

        var empty: [QueueBenchmark.Throughput] = []
        var enqueueSeconds: [Double] = []
        for threads in threadCounts {
            progress.update("empty jobs: enqueue \(jobs)…")
            enqueueSeconds.append(try QueueBenchmark.enqueueEmpty(jobs, tenantIds: tenantIds, on: connection))
            try connection.execute("VACUUM ANALYZE payrun.jobs")
            progress.update("empty jobs: \(threads) thread(s) claim+complete…")
            empty.append(try QueueBenchmark.drainEmpty(url: url, threads: threads, batch: batch))
        }
        progress.update("claim latency…")
        let latency = try QueueBenchmark.wakeUpLatency(url: url, samples: latencySamples, tenantIds: tenantIds, on: connection)
        progress.update("month-end for the recalculation store…")
        _ = try PayrunMeasurement.run(url: url, threads: 2, chunkSize: RunPlanner.chunkEmployeesMaxDefault,
                                      period: (period.year, period.month), progress: progress)
        var recalc: [QueueBenchmark.Throughput] = []
        for threads in threadCounts {
            progress.update("recalculation: enqueue \(summary.employees)…")
            let count = try enqueueRecalculations(on: connection, period: period)
            try connection.execute("VACUUM ANALYZE payrun.jobs")
            progress.update("recalculation: \(threads) thread(s)…")
            recalc.append(QueueBenchmark.Throughput(threads: threads, jobs: count,
                                                    seconds: try drainWithPool(url: url, threads: threads, connection: connection)))
        }
        progress.finish()
        let revisions = try connection.queryOne("SELECT min(revision), max(revision), count(*) FROM payrun.payslips")

        if json {
            let object: [String: Any] = [
                "benchmark": "payrun bench queue",
                "machine": ["cores": machine.cores, "memoryBytes": machine.memoryKiB.map { $0 * 1024 } as Any,
                            "loadAverageAtStart": machine.loadAverage as Any, "commit": machine.commit as Any, "date": machine.date] as [String: Any],
                "emptyJobs": empty.enumerated().map { i, t in
                    ["threads": t.threads, "jobs": t.jobs, "batch": batch, "seconds": round3(t.seconds), "jobsPerSecond": round1(t.jobsPerSecond),
                     "enqueueJobsPerSecond": round1(Double(jobs) / enqueueSeconds[i])] as [String: Any]
                },
                "recalculationJobs": recalc.map {
                    ["threads": $0.threads, "jobs": $0.jobs, "seconds": round3($0.seconds), "jobsPerSecond": round1($0.jobsPerSecond)] as [String: Any]
                },
                "claimLatencyMs": ["samples": latency.samples, "p50": round3(latency.p50), "p90": round3(latency.p90),
                                   "p99": round3(latency.p99), "max": round3(latency.max)] as [String: Any],
                "payslipRevisions": ["min": try revisions?.int32(at: 0) ?? 0, "max": try revisions?.int32(at: 1) ?? 0,
                                     "payslips": try revisions?.int64(at: 2) ?? 0] as [String: Any],
                "loadAverageAtEnd": MachineInfo.current(repository: nil).loadAverage as Any,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("payrun bench queue — \(machine.date), commit \(machine.commit ?? "?"), \(machine.cores) cores, load average at start \(machine.loadAverage ?? "?")")
            for (i, t) in empty.enumerated() {
                print(String(format: "empty jobs, %d thread(s), batch %d: %d jobs in %.2f s = %.0f jobs/s (enqueue %.0f jobs/s)", t.threads, batch,
                             t.jobs, t.seconds, t.jobsPerSecond, Double(jobs) / enqueueSeconds[i]))
            }
            for t in recalc {
                print(String(format: "recalculation jobs, %d thread(s): %d jobs in %.2f s = %.0f jobs/s", t.threads, t.jobs, t.seconds, t.jobsPerSecond))
            }
            print(String(format: "claim latency of an idle worker (commit → claimed), %d samples: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
                         latency.samples, latency.p50, latency.p90, latency.p99, latency.max))
        }
    }

    /// One `payrun.enqueue_recalculation` per employee, a transaction per 1,000; returns how many.
    func enqueueRecalculations(on connection: PostgresConnection, period: LocalDate) throws -> Int {
        let rows = try connection.query("SELECT tenant_id, id FROM payrun.employees ORDER BY tenant_id, id")
            .map { (try $0.int64(at: 0), try $0.int64(at: 1)) }
        var index = 0
        while index < rows.count {
            let slice = rows[index..<min(index + 1_000, rows.count)]
            try connection.transaction { c in
                var tenant: Int64 = -1
                for (t, id) in slice {
                    if t != tenant { try TenantScope.set(t, on: c); tenant = t }
                    try c.execute("SELECT payrun.enqueue_recalculation($1, $2, $3::date, 'benchmark')",
                                  [.int(t), .int(id), .text(period.description)])
                }
            }
            index += 1_000
        }
        return rows.count
    }

    /// Runs a WorkerPool with the real handlers until no job is pending or running; returns the seconds.
    func drainWithPool(url: String, threads: Int, connection: PostgresConnection) throws -> Double {
        var logger = Logger(label: "payrun.bench.queue")
        logger.logLevel = .error
        let pool = WorkerPool(configuration: WorkerConfiguration(databaseURL: url, jobThreads: threads, pollSeconds: 1, workerId: "bench-queue"),
                              handlers: PayrollJobHandlers.all(), periodic: [], logger: logger)
        let stopped = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        Thread {
            do { try pool.run() } catch { StandardStreams.writeError("worker: \(error)\n") }
            stopped.signal()
        }.start()
        defer { pool.stop(); stopped.wait() }
        let deadline = started.advanced(by: .seconds(3600))
        while true {
            let left = try connection.queryOne("SELECT count(*) FROM payrun.jobs WHERE state IN ('pending', 'running')")?.int64(at: 0) ?? 0
            if left == 0 { break }
            guard ContinuousClock.now < deadline else { throw CommandFailure("recalculation jobs did not drain within an hour") }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let elapsed = seconds(started.duration(to: .now))
        let failed = try connection.queryOne("SELECT count(*) FROM payrun.jobs WHERE state = 'failed'")?.int64(at: 0) ?? 0
        if failed > 0 { throw CommandFailure("\(failed) job(s) failed during the recalculation benchmark") }
        return elapsed
    }
}
