import ArgumentParser
import Foundation
import PayrollRules
import PayrollStore
import PayrunWorker

/// `payrun bench [run]`: for each store size, on the same freshly seeded (or reused) data, the real
/// month-end path, its physical floor, the SQL peer and the compute scaling; one table or JSON.
struct BenchRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Month-end throughput against the COPY floor and the SQL baseline, for a series of store sizes.",
        discussion: """
            For each --employees size: a database payrun_bench_e<size> on the server,
            seeded by StoreSeeder (or reused when it was seeded with the same spec),
            VACUUM ANALYZE, then in this order on the same data. While a size is
            measured, autovacuum is off on the tables the steps write (set back
            afterwards); before each step the bench waits out running autovacuum
            workers, runs VACUUM (ANALYZE) on those tables and a CHECKPOINT:
              1. payrun: schedule month-end for every tenant and let an in-process
                 WorkerPool (--threads job threads) run until every run is calculated;
                 wall time, rates, time per phase summed over chunks, peak RSS of this
                 process during the run. The workers connect as the bench's role, or
                 with --worker-role as that role (payrun_worker: row-level security
                 applies, as for production workers);
              2. floor: the same shifts COPYed out and the same payslip rows COPYed
                 in, per chunk, on --threads connections, no computation;
              3. baseline: benchmarks/sql-baseline.sql (one INSERT … SELECT inside
                 PostgreSQL); with --repeat and --baseline-repeat, steps 1–3 alternate
                 (month-end i, floor i, baseline i) and each month-end is also divided
                 by its own floor and baseline. Around each run: the VM's steal time,
                 the autovacuum runs that finished, and (before a month-end or floor)
                 a throughput-bound probe (below);
              4. compute scaling: BatchCalculator at 1 thread and at --threads on up
                 to --compute-sample loaded inputs, best of five alternated
                 repetitions ("batch"); then per job, in five rounds over the
                 month-end's chunk jobs: each job loaded as its worker loaded it and
                 computed right after at both parallelisms. Per job the best of five
                 of each parallelism, summed ("per job"), and each round's one-thread
                 walls over its two-thread walls ("rounds", their median). Each
                 repetition is also a pair (one thread over the threads right after
                 it): the JSON and the table give the pairs' medians (per job weighted
                 by employees) and the CPU-seconds at the threads over one thread for
                 the same work. Right before each pair two fixed workloads with no
                 payrun code, one latency-bound and one throughput-bound, measure what
                 the machine gave that many threads at that moment (the probes).
            One worker pool and one set of floor connections serve every repetition of
            a size (as a worker in production runs before and after a month-end), after
            an untimed warm-up month-end and floor on their new sessions, whose times
            are reported apart; --cold starts new ones for each measurement and skips
            the warm-up. Without --database-url / DATABASE_URL the private cluster
            .pg-bench next to ops/ is started with durable settings (and stopped at the
            end if this started it).
            """)

    @OptionGroup var server: BenchServerOptions

    @Option(help: ArgumentHelp("Store sizes, comma-separated (employees).", valueName: "n,n,…"))
    var employees: String = "1000,10000,100000"
    @Option(help: "Tenants the employees are spread over.") var tenants: Int = 10
    @Option(name: .customLong("shifts-per-employee"), help: "Shifts per employee-month of the seeded store.") var shiftsPerEmployee: Int = 22
    @Option(help: "Seed of the generated store.") var seed: UInt64 = 1
    @Option(help: ArgumentHelp("Job threads / connections (default: the number of cores).", valueName: "n")) var threads: Int?
    @Option(name: .customLong("chunk-size"), help: "Employees per chunk job.") var chunkSize: Int = RunPlanner.chunkEmployeesMaxDefault
    @Option(name: .customLong("baseline-sql"), help: ArgumentHelp("The SQL baseline (default: benchmarks/sql-baseline.sql of this repository).", valueName: "path"))
    var baselineSQL: String?
    @Option(name: .customLong("compute-sample"), help: "Employees loaded for the compute-scaling measurement.") var computeSample: Int = 50_000
    @Option(name: .customLong("repeat"), help: ArgumentHelp(
        "Month-end and floor measurements per size, alternated (month-end, floor, month-end, …); the median of each counts (the lower middle one for an even count), every wall time is in the JSON, and so is each pair's ratio (month-end i ÷ floor i) with their median.",
        valueName: "n")) var repetitions: Int = 1
    @Option(name: .customLong("baseline-repeat"), help: ArgumentHelp(
        "SQL baseline runs per size, each after a CHECKPOINT: run i right after month-end i and floor i, runs beyond --repeat after the last floor; the median counts, every wall time is in the JSON, and so is each pair's ratio (month-end i ÷ baseline i) with their median.",
        valueName: "n")) var baselineRepetitions: Int = 1
    @Option(name: .customLong("worker-role"), help: ArgumentHelp(
        "Run the month-end's workers as this role, set at each session's start (e.g. payrun_worker, whose members production workers are: row-level security then applies; payslips are COPYed in as payrun_payslip_writer, or inserted from column arrays where that role is missing). Default: the bench's own role. The floor and the baseline keep the bench's role.",
        valueName: "role")) var workerRole: String?
    @Flag(help: ArgumentHelp(
        "New workers and new floor connections for every month-end and floor, and no warm-up (until session 19 the only way). By default one set of workers and one of floor connections serve every repetition of a size, after an untimed warm-up month-end and floor, as workers in production run before and after a month-end; the warm-up's times are reported apart."))
    var cold = false
    @Flag(help: "Print one JSON object instead of the table.") var json = false

    func sizes() throws -> [Int] {
        let parts = employees.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let values = parts.compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
        guard !values.isEmpty, values.count == parts.count, values.allSatisfy({ $0 >= 1 && $0 <= 10_000_000 }) else {
            throw ValidationError("--employees takes sizes 1…10,000,000 separated by commas, got '\(employees)'")
        }
        return values
    }

    func validate() throws {
        _ = try sizes()
        guard tenants >= 1, (1...64).contains(threads ?? 1), chunkSize >= 1, shiftsPerEmployee >= 0, computeSample >= 1,
              (1...100).contains(repetitions), (1...100).contains(baselineRepetitions) else {
            throw ValidationError("--tenants ≥ 1, --threads 1…64, --chunk-size ≥ 1, --shifts-per-employee ≥ 0, --compute-sample ≥ 1, --repeat 1…100, --baseline-repeat 1…100")
        }
    }

    func run() throws {
        let threads = self.threads ?? WorkerConfiguration.coreCount
        let progress = TerminalProgress()
        func log(_ text: String) { StandardStreams.writeError(text + "\n") }
        guard let baseline = baselineSQL ?? BaselineMeasurement.locate() else {
            throw CommandFailure("benchmarks/sql-baseline.sql not found above the current directory or the executable; pass --baseline-sql")
        }
        let repository = URL(fileURLWithPath: baseline).deletingLastPathComponent().deletingLastPathComponent().path
        let bench = try BenchServer.open(databaseURL: server.databaseURL, keepCluster: server.keepCluster, log: log)
        defer { bench.close(log: log) }
        let machine = MachineInfo.current(repository: repository)
        var entries: [BenchEntry] = []
        for size in try sizes() {
            guard let period = LocalDate(year: 2026, month: 10, day: 1) else { throw CommandFailure("bad period") }
            let spec = SeedSpec(tenants: min(tenants, size), employees: size, shiftsPerEmployee: shiftsPerEmployee, seed: seed, period: period)
            let store = try BenchStore.prepare(spec, server: bench, log: log, progress: progress)
            let periodEnd = period.adding(days: LocalDate.daysInMonth(year: period.year, month: period.month) - 1)
            var payruns: [PayrunMeasurement] = []
            var floors: [FloorMeasurement] = []
            var peers: [BaselineMeasurement] = []
            var machine = RepetitionMachine(url: store.url)
            // Autovacuum off on the tables the steps write while this size is measured
            // (`BenchHousekeeping`); back on whatever happens below.
            try BenchHousekeeping.setAutovacuum(false, url: store.url)
            defer {
                do { try BenchHousekeeping.setAutovacuum(true, url: store.url) } catch {
                    log("\(store.name): autovacuum not set back on its tables (\(error)): ALTER TABLE … RESET (autovacuum_enabled)")
                }
            }
            let runBaseline = { (number: Int) throws in
                BenchHousekeeping.prepareStep(url: store.url, before: "the SQL baseline", log: log)
                log("\(store.name): SQL baseline\(baselineRepetitions > 1 ? " (\(number) of \(baselineRepetitions))" : "")…")
                peers.append(try machine.watch(\.baseline, probeThreads: nil) {
                    try BaselineMeasurement.run(url: store.url, script: baseline, periodStart: period)
                })
            }
            // Warm (the default): one set of workers and one of floor connections for the whole
            // size, run once untimed before the repetitions (`--cold`: new ones for each run).
            let workers = cold ? nil : try BenchWorkers(url: store.url, threads: threads, chunkSize: chunkSize, workerRole: workerRole)
            defer { workers?.stop() }
            let floorTeam = cold ? nil : FloorTeam(url: store.url, threads: threads,
                                                   shiftWindow: FloorMeasurement.shiftWindow(periodStart: period, periodEnd: periodEnd))
            defer { floorTeam?.finish() }
            // Each after `BenchHousekeeping.prepareStep`.
            let monthEnd = { (label: String) throws -> PayrunMeasurement in
                log("\(store.name): \(label), \(threads) threads, chunks of \(chunkSize)\(workerRole.map { ", workers as role \($0)" } ?? "")…")
                if let workers {
                    return try PayrunMeasurement.run(url: store.url, workers: workers, period: (period.year, period.month),
                                                     progress: progress, log: { log("\(store.name): \($0)") })
                }
                return try PayrunMeasurement.run(url: store.url, threads: threads, chunkSize: chunkSize,
                                                 period: (period.year, period.month), workerRole: workerRole, progress: progress,
                                                 log: { log("\(store.name): \($0)") })
            }
            let floorRun = { (label: String) throws -> FloorMeasurement in
                log("\(store.name): \(label)…")
                return try FloorMeasurement.run(url: store.url, threads: threads, periodStart: period, periodEnd: periodEnd,
                                                team: floorTeam, progress: progress, log: { log("\(store.name): \($0)") })
            }
            var warmUp: (payrun: Double, floor: Double)?
            if !cold {
                BenchHousekeeping.prepareStep(url: store.url, before: "the month-end", log: log)
                let first = try monthEnd("warm-up month-end (untimed in the figures)")
                BenchHousekeeping.prepareStep(url: store.url, before: "the floor", log: log)
                let firstFloor = try floorRun("warm-up floor (untimed in the figures)")
                warmUp = (first.wallSeconds, firstFloor.wallSeconds)
                log(String(format: "%@: warm-up: month-end %.2f s, floor %.2f s (new sessions)", store.name, first.wallSeconds,
                           firstFloor.wallSeconds))
            }
            for repetition in 1...repetitions {
                let of = repetitions > 1 ? " (\(repetition) of \(repetitions))" : ""
                if repetition > 1 || !cold { try BenchStore.resetForMonthEnd(url: store.url) }
                BenchHousekeeping.prepareStep(url: store.url, before: "the month-end", log: log)
                payruns.append(try machine.watch(\.payrun, probeThreads: threads) {
                    try monthEnd("payrun month-end\(of)")
                })
                BenchHousekeeping.prepareStep(url: store.url, before: "the floor", log: log)
                floors.append(try machine.watch(\.floor, probeThreads: threads) {
                    try floorRun("floor\(of)")
                })
                // Baseline i right after month-end i and floor i, so that each has a neighbour in
                // time (`BenchEntry.baselinePairRatios`); runs beyond --repeat follow the last floor.
                if repetition <= baselineRepetitions { try runBaseline(repetition) }
            }
            // Nothing of the pool or the floor's connections is left running for the steps below.
            workers?.stop()
            floorTeam?.finish()
            var payrun = median(payruns, by: \.wallSeconds)
            payrun.peakRSSKiB = payruns.compactMap(\.peakRSSKiB).max()
            let floor = median(floors, by: \.wallSeconds)
            if baselineRepetitions > repetitions {
                for repetition in (repetitions + 1)...baselineRepetitions { try runBaseline(repetition) }
            }
            let peer = median(peers, by: \.wallSeconds)
            log("\(store.name): compute scaling…")
            let scaling = try ComputeScaling.run(url: store.url, threads: threads, sampleMax: computeSample, log: log)
            let entry = BenchEntry(store: store, threads: threads, chunkSize: chunkSize, payrun: payrun, floor: floor, baseline: peer,
                                   scaling: scaling, payrunWallSeconds: payruns.map(\.wallSeconds),
                                   floorWallSeconds: floors.map(\.wallSeconds), baselineWallSeconds: peers.map(\.wallSeconds),
                                   machine: machine, warmUp: warmUp)
            log(entry.oneLine)
            entries.append(entry)
        }
        let report = BenchReport(machine: machine, entries: entries)
        if json {
            print(report.json())
        } else {
            print(report.table())
        }
    }
}

/// What the VM did around each repetition of a size: the steal time during it
/// (`MachineInfo.stealSeconds`, nil where not reported) and, right before a month-end or a floor,
/// `ParallelProbe`'s throughput-bound speed-up (what two threads got at that moment: 1 when they
/// shared one core's execution units, 2 on two cores). In the order run, per kind.
struct RepetitionMachine {
    struct Kind {
        var stealSeconds: [Double?] = []
        var throughputProbesBefore: [Double?] = []
        /// Autovacuum and autoanalyze runs that finished in the store's database during each run
        /// (`BenchHousekeeping.autovacuumRuns`; 0 unless one started on a table the bench does not
        /// vacuum itself, e.g. a system catalog).
        var autovacuumRuns: [Int?] = []
    }
    /// The store whose autovacuum runs are counted (nil: not counted).
    var url: String?
    var payrun = Kind()
    var floor = Kind()
    var baseline = Kind()

    /// Runs `body`, recording its steal time (and a probe before it with `probeThreads` ≥ 2) under `kind`.
    mutating func watch<T>(_ kind: WritableKeyPath<RepetitionMachine, Kind>, probeThreads: Int?,
                           _ body: () throws -> T) rethrows -> T {
        if let probeThreads {
            self[keyPath: kind].throughputProbesBefore.append(ParallelProbe.speedUp(threads: probeThreads, workload: .throughputBound))
        }
        let runs = url.flatMap(BenchHousekeeping.autovacuumRuns)
        let stolen = MachineInfo.stealSeconds()
        let value = try body()
        let after = MachineInfo.stealSeconds()
        self[keyPath: kind].stealSeconds.append(stolen.flatMap { before in after.map { $0 - before } })
        let runsAfter = url.flatMap(BenchHousekeeping.autovacuumRuns)
        self[keyPath: kind].autovacuumRuns.append(runs.flatMap { before in runsAfter.map { $0 - before } })
        return value
    }
}

/// The median measurement by `key`: the middle one, the lower middle one of an even count.
func median<T>(_ values: [T], by key: (T) -> Double) -> T {
    precondition(!values.isEmpty, "median of nothing")
    let sorted = values.sorted { key($0) < key($1) }
    return sorted[(sorted.count - 1) / 2]
}
