import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// `payrun bench`, `payrun bench queue` and benchmarks/chart.py, end to end on tiny stores.
@Suite("payrun bench, bench queue and chart.py")
struct BenchCommandTests {
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var baselineSQL: String { repository.appendingPathComponent("benchmarks/sql-baseline.sql").path }

    /// Drops a store the bench created on the test server (best effort: the test's own checks come first).
    static func dropDatabase(_ name: String, on server: String) {
        guard let admin = try? PostgresConnection(url: server) else { return }
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        admin.close()
    }

    static func number(_ object: Any?, _ path: String...) -> Double? {
        var value = object
        for key in path { value = (value as? [String: Any])?[key] }
        return (value as? NSNumber)?.doubleValue
    }

    @Test("bench --json on 200 employees: the JSON parses, every run is calculated, floor and baseline are timed, ratios match the times")
    func benchSmallStore() throws {
        let server = try TestDatabase.serverURL()
        defer { Self.dropDatabase("payrun_bench_e200", on: server) }
        guard let run = try PayrunBinary.run(
            ["bench", "--employees", "200", "--tenants", "2", "--threads", "2", "--chunk-size", "60", "--json", "--database-url", server,
             "--baseline-sql", Self.baselineSQL], input: "") else { return }
        #expect(run.exitCode == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(Self.number(object, "machine", "cores").map { $0 >= 1 } == true)
        let sizes = object?["sizes"] as? [[String: Any]] ?? []
        #expect(sizes.count == 1)
        guard let size = sizes.first else { return }
        #expect(Self.number(size, "employees") == 200)
        #expect(Self.number(size, "spec", "employees") == 200)
        #expect((Self.number(size, "shifts") ?? 0) > 0)
        let runs = Self.number(size, "payrun", "runs") ?? 0
        #expect(runs >= 2)
        #expect(Self.number(size, "payrun", "runsCalculated") == runs)
        // The seeded store has leavers and late hires: payrun computes those employed in the period.
        let computed = Self.number(size, "employeesComputed") ?? 0
        #expect(computed >= 150 && computed <= 200)
        #expect(Self.number(size, "payrun", "payslips") == computed)
        #expect((Self.number(size, "payrun", "chunks") ?? 0) >= 4, "chunks of 60 over 200 employees")
        // The test server's role bypasses row-level security: the direct COPY path.
        let payrunObject = size["payrun"] as? [String: Any]
        #expect(payrunObject?["rowSecurityActive"] as? Bool == false && payrunObject?["workerRole"] is NSNull)
        #expect(payrunObject?["payslipsCopiedAsWriterRole"] as? Bool == false)
        let wall = Self.number(size, "payrun", "wallSeconds") ?? 0
        let floor = Self.number(size, "floor", "wallSeconds") ?? 0
        let baseline = Self.number(size, "baseline", "wallSeconds") ?? 0
        #expect(wall > 0 && floor > 0 && baseline > 0)
        #expect(Self.number(size, "floor", "payslipsIn") == computed)
        #expect((Self.number(size, "floor", "shiftsOut") ?? 0) > 0)
        #expect((Self.number(size, "baseline", "employees") ?? 0) > 0)
        #expect((Self.number(size, "baseline", "employees") ?? .infinity) <= computed, "the baseline skips employees without a contract")
        // The JSON rounds times to 1 ms and ratios are computed before rounding: on a 40 ms floor
        // that alone moves wall/floor by ~1.3 %, so the bound carries each time's rounding.
        func ratioBound(_ ratio: Double, _ a: Double, _ b: Double) -> Double { ratio * (0.01 + 0.0005 / a + 0.0005 / b) + 0.001 }
        if let ratio = Self.number(size, "floor", "ratio") { #expect(abs(ratio - wall / floor) <= ratioBound(ratio, wall, floor)) } else {
            Issue.record("no floor ratio")
        }
        if let ratio = Self.number(size, "baseline", "ratio") { #expect(abs(ratio - wall / baseline) <= ratioBound(ratio, wall, baseline)) } else {
            Issue.record("no baseline ratio")
        }
        let phases = (size["payrun"] as? [String: Any])?["phasesSeconds"] as? [String: Any] ?? [:]
        for phase in ["claim", "load", "compute", "write", "commit"] {
            #expect(Self.number(phases, phase).map { $0 >= 0 } == true, "phase \(phase) missing: \(phases)")
        }
        #expect((Self.number(size, "payrun", "peakRSSBytes") ?? 0) > 1_000_000)
        #expect((Self.number(size, "computeScaling", "speedUp") ?? 0) > 0)
        #expect((Self.number(size, "computeScaling", "employees") ?? 0) > 0)
        // Per job: every chunk job of the month-end (the sample is larger than the store), its valid inputs.
        #expect((Self.number(size, "computeScaling", "perJob", "speedUp") ?? 0) > 0)
        #expect((Self.number(size, "computeScaling", "perJob", "jobs") ?? 0) >= 1)
        #expect(Self.number(size, "computeScaling", "perJob", "employees").map { $0 > 0 && $0 <= computed } == true)
        // Each repetition as a pair (one thread over the two threads right after it), and their median.
        let scaling = size["computeScaling"] as? [String: Any] ?? [:]
        let batchPairs = (scaling["pairSpeedUps"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect(batchPairs.count == 5 && batchPairs.allSatisfy { $0 > 0 }, "\(batchPairs)")
        if batchPairs.count == 5 { #expect(Self.number(size, "computeScaling", "pairSpeedUpMedian") == batchPairs.sorted()[2]) }
        // The CPU-seconds at two threads over one thread, per repetition (a sanity range only: on a
        // batch this small a page-fault burst in one run moves a ratio a lot).
        let cpuRatios = (scaling["cpuRatios"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect(cpuRatios.count == 5 && cpuRatios.allSatisfy { $0 > 0.1 && $0 < 50 }, "\(cpuRatios)")
        if cpuRatios.count == 5 { #expect(Self.number(size, "computeScaling", "cpuRatioMedian") == cpuRatios.sorted()[2]) }
        #expect((Self.number(size, "computeScaling", "perJob", "cpuRatioMedian") ?? 0) > 0.1)
        // Per job: five pairs per job, each weighted by its job's employees; the weighted median is
        // the smallest pair at which half the weight is reached.
        let perJob = scaling["perJob"] as? [String: Any] ?? [:]
        let jobPairs = (perJob["pairSpeedUps"] as? [NSNumber])?.map(\.doubleValue) ?? []
        let jobWeights = (perJob["pairEmployees"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect(jobPairs.count == 5 * Int(Self.number(size, "computeScaling", "perJob", "jobs") ?? 0))
        #expect(jobWeights.count == jobPairs.count && jobWeights.reduce(0, +) == 5 * (Self.number(size, "computeScaling", "perJob", "employees") ?? 0))
        // Round by round: a job's five pairs are a round apart, every round over the same jobs in the same order.
        let jobCount = Int(Self.number(size, "computeScaling", "perJob", "jobs") ?? 0)
        let pairJobs = (perJob["pairJobs"] as? [NSNumber])?.map(\.intValue) ?? []
        let pairRounds = (perJob["pairRounds"] as? [NSNumber])?.map(\.intValue) ?? []
        #expect(pairJobs.count == jobPairs.count && pairRounds.count == jobPairs.count)
        #expect(pairRounds == (0..<5).flatMap { Array(repeating: $0, count: jobCount) }, "\(pairRounds)")
        #expect(pairJobs.count == 5 * jobCount && (0..<5).allSatisfy { Array(pairJobs[$0 * jobCount ..< ($0 + 1) * jobCount]) == Array(pairJobs[0..<jobCount]) },
                "\(pairJobs)")
        #expect(Set(pairJobs).count == jobCount)
        // Each round's speed-up is its one-thread walls summed over its two-thread walls summed.
        let rounds = (perJob["roundSpeedUps"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect(rounds.count == 5, "\(rounds)")
        let walls = (one: (perJob["pairOneThreadSeconds"] as? [NSNumber])?.map(\.doubleValue) ?? [],
                     all: (perJob["pairAllThreadsSeconds"] as? [NSNumber])?.map(\.doubleValue) ?? [])
        for (round, value) in rounds.enumerated() where walls.one.count == pairRounds.count && walls.all.count == pairRounds.count {
            let members = pairRounds.indices.filter { pairRounds[$0] == round }
            let one = members.reduce(0) { $0 + walls.one[$1] }, all = members.reduce(0) { $0 + walls.all[$1] }
            #expect(all > 0 && abs(value - one / all) <= 0.0006 + one / all * 0.000001 * Double(members.count) * (1 / one + 1 / all),
                    "round \(round): \(value) against \(one) / \(all)")
        }
        if rounds.count == 5 { #expect(Self.number(size, "computeScaling", "perJob", "roundSpeedUpMedian") == rounds.sorted()[2]) }
        // Each pair's walls (rounded to 1 µs) give its speed-up (rounded to 0.001).
        let pairOne = (perJob["pairOneThreadSeconds"] as? [NSNumber])?.map(\.doubleValue) ?? []
        let pairAll = (perJob["pairAllThreadsSeconds"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect(pairOne.count == jobPairs.count && pairAll.count == jobPairs.count)
        for k in jobPairs.indices where k < pairOne.count && k < pairAll.count && pairAll[k] > 0 {
            let exact = pairOne[k] / pairAll[k]
            #expect(abs(jobPairs[k] - exact) <= 0.0006 + exact * 0.000001 * (1 / pairOne[k] + 1 / pairAll[k]), "pair \(k): \(jobPairs[k]) against \(pairOne[k]) / \(pairAll[k])")
        }
        let sorted = zip(jobPairs, jobWeights).sorted { $0.0 < $1.0 }
        var cumulative = 0.0, expected: Double?
        for (value, weight) in sorted where expected == nil {
            cumulative += weight
            if cumulative * 2 >= jobWeights.reduce(0, +) { expected = value }
        }
        #expect(expected != nil && Self.number(size, "computeScaling", "perJob", "pairSpeedUpMedian") == expected,
                "\(String(describing: expected)) against \(String(describing: Self.number(size, "computeScaling", "perJob", "pairSpeedUpMedian")))")
        // The machine's own two-thread speed-up on fixed work, one probe of each workload
        // (latency-bound, throughput-bound) right before each pair. No range beyond positive: other
        // suites run meanwhile, and a one-thread side that lost its core both times reads above 2
        // (3.1 in a CI run).
        for (probeKey, relativeKey) in [("probeSpeedUp", "relativeSpeedUp"), ("throughputProbeSpeedUp", "throughputRelativeSpeedUp")] {
            let batchProbes = (scaling[probeKey + "s"] as? [NSNumber])?.map(\.doubleValue) ?? []
            #expect(batchProbes.count == 5 && batchProbes.allSatisfy { $0 > 0 && $0.isFinite }, "\(probeKey): \(batchProbes)")
            if batchProbes.count == 5 { #expect(Self.number(size, "computeScaling", probeKey + "Median") == batchProbes.sorted()[2], "\(probeKey)") }
            let jobProbes = (perJob[probeKey + "s"] as? [NSNumber])?.map(\.doubleValue) ?? []
            let relative = (perJob[relativeKey + "s"] as? [NSNumber])?.map(\.doubleValue) ?? []
            #expect(jobProbes.count == jobPairs.count && relative.count == jobPairs.count, "\(probeKey)")
            #expect(jobProbes.allSatisfy { $0 > 0 && $0.isFinite }, "\(probeKey): \(jobProbes)")
            // Each relative figure is its pair over its probe (both rounded to 0.001 in the JSON).
            for (k, value) in relative.enumerated() where k < jobPairs.count && k < jobProbes.count {
                let exact = jobPairs[k] / jobProbes[k]
                #expect(abs(value - exact) <= 0.002 + exact * 0.0006 / jobProbes[k] + 0.0006 / jobProbes[k],
                        "\(relativeKey) \(k): \(value) against \(jobPairs[k]) / \(jobProbes[k])")
            }
            #expect(Self.number(size, "computeScaling", "perJob", probeKey + "Median").map { jobProbes.contains($0) } == true, "\(probeKey)")
            #expect(Self.number(size, "computeScaling", "perJob", relativeKey + "Median").map { relative.contains($0) } == true, "\(relativeKey)")
        }
    }

    @Test("bench --repeat 3: an untimed warm-up, then three alternated month-ends and floors on one store and the same sessions, each month-end from a clean slate; the medians count")
    func benchRepeated() throws {
        let server = try TestDatabase.serverURL()
        defer { Self.dropDatabase("payrun_bench_e150", on: server) }
        guard let run = try PayrunBinary.run(
            ["bench", "--employees", "150", "--tenants", "2", "--threads", "2", "--chunk-size", "50", "--repeat", "3", "--json",
             "--compute-sample", "100", "--database-url", server, "--baseline-repeat", "3",
             "--baseline-sql", Self.baselineSQL], input: "") else { return }
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "payrun month-end (").count - 1 == 3, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "SQL baseline (").count - 1 == 3, "\(run.stderr)")
        // Alternated: month-end i, floor i, baseline i, then month-end i + 1.
        let order = ["warm-up month-end", "warm-up floor", "warm-up: month-end", "payrun month-end (1 of 3)", "floor (1 of 3)", "SQL baseline (1 of 3)", "payrun month-end (2 of 3)",
                     "floor (2 of 3)", "SQL baseline (2 of 3)", "payrun month-end (3 of 3)", "floor (3 of 3)", "SQL baseline (3 of 3)"]
        let positions = order.map { run.stderr.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil } && zip(positions, positions.dropFirst()).allSatisfy { $0! < $1! }, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        guard let size = (object?["sizes"] as? [[String: Any]])?.first else { Issue.record("no size"); return }
        #expect(Self.number(size, "repetitions") == 3)
        #expect(size["sessions"] as? String == "kept between measurements, after a warm-up")
        #expect((Self.number(size, "warmUpPayrunWallSeconds") ?? 0) > 0 && (Self.number(size, "warmUpFloorWallSeconds") ?? 0) > 0)
        let walls = (size["payrunWallSecondsAll"] as? [NSNumber])?.map(\.doubleValue) ?? []
        let floors = (size["floorWallSecondsAll"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect(walls.count == 3 && floors.count == 3)
        #expect(walls.allSatisfy { $0 > 0 } && floors.allSatisfy { $0 > 0 })
        // The reported times are the medians of the three.
        let baselines = (size["baselineWallSecondsAll"] as? [NSNumber])?.map(\.doubleValue) ?? []
        #expect(baselines.count == 3 && baselines.allSatisfy { $0 > 0 })
        if walls.count == 3, floors.count == 3, baselines.count == 3 {
            #expect(abs((Self.number(size, "payrun", "wallSeconds") ?? 0) - walls.sorted()[1]) < 0.0015)
            #expect(abs((Self.number(size, "floor", "wallSeconds") ?? 0) - floors.sorted()[1]) < 0.0015)
            #expect(abs((Self.number(size, "baseline", "wallSeconds") ?? 0) - baselines.sorted()[1]) < 0.0015)
            // Each pair's ratio (month-end i over floor i, over baseline i) and their median. The
            // walls are rounded to the millisecond in the JSON, the ratios are of the unrounded ones.
            for (key, others) in [("floor", floors), ("baseline", baselines)] {
                let pairs = ((size[key] as? [String: Any])?["pairRatios"] as? [NSNumber])?.map(\.doubleValue) ?? []
                #expect(pairs.count == 3, "\(key)")
                for (k, ratio) in pairs.enumerated() where k < 3 {
                    let bound = ratio * (0.0005 / walls[k] + 0.0005 / others[k] + 0.001) + 0.001
                    #expect(abs(ratio - walls[k] / others[k]) <= bound, "\(key) pair \(k): \(ratio) against \(walls[k]) / \(others[k])")
                }
                if pairs.count == 3 {
                    #expect(abs((Self.number(size, key, "pairRatioMedian") ?? 0) - pairs.sorted()[1]) < 0.0015, "\(key)")
                }
            }
        }
        // What the VM did around each repetition: steal time during each of the nine (null only
        // where /proc/stat has no steal; Linux has had it since 2.6.11), a throughput-bound probe
        // before each month-end and floor.
        let stealReported = MachineSteal.reported
        for key in ["payrunStealSecondsAll", "floorStealSecondsAll", "baselineStealSecondsAll"] {
            let values = size[key] as? [Any] ?? []
            #expect(values.count == 3, "\(key): \(values)")
            #expect(values.allSatisfy { ($0 as? NSNumber).map { $0.doubleValue >= 0 } ?? !stealReported }, "\(key): \(values)")
        }
        for key in ["payrunAutovacuumRunsAll", "floorAutovacuumRunsAll", "baselineAutovacuumRunsAll"] {
            let values = (size[key] as? [NSNumber])?.map(\.intValue) ?? []
            #expect(values.count == 3 && values.allSatisfy { $0 >= 0 }, "\(key): \(values)")
        }
        for key in ["payrunThroughputProbesBefore", "floorThroughputProbesBefore"] {
            let values = (size[key] as? [NSNumber])?.map(\.doubleValue) ?? []
            #expect(values.count == 3 && values.allSatisfy { $0 > 0 && $0.isFinite }, "\(key): \(values)")
        }
        // Each month-end started from a clean slate: one payslip per computed employee, every run calculated once.
        let computed = Self.number(size, "employeesComputed") ?? 0
        #expect(computed >= 100 && computed <= 150)
        #expect(Self.number(size, "payrun", "payslips") == computed)
        #expect(Self.number(size, "floor", "payslipsIn") == computed)
        #expect(Self.number(size, "payrun", "runsCalculated") == Self.number(size, "payrun", "runs"))
        let database = try PostgresConnection(url: PostgresConnectionString.replacingDatabase(in: server, with: "payrun_bench_e150"))
        defer { database.close() }
        #expect(try database.queryOne("SELECT count(*) FROM payrun.payroll_runs")?.int64(at: 0) == Int64(Self.number(size, "payrun", "runs") ?? -1))
        // The workers' counts are of one month-end, not of all four their pool ran (the last one's
        // jobs are still in the queue table; each month-end has the same).
        #expect(try database.queryOne("SELECT count(*) FROM payrun.jobs")?.int64(at: 0) == Int64(Self.number(size, "payrun", "jobsClaimed") ?? -1))
        // Autovacuum was off on the tables the steps write while they were timed, and is back on.
        let options = try database.query("""
            SELECT c.oid::regclass::text, coalesce(array_to_string(c.reloptions, ','), '') FROM pg_class c
             WHERE c.oid IN ('payrun.payslips'::regclass, 'payrun.jobs'::regclass, 'payrun_bench.floor_payslips'::regclass,
                             'payrun_bench.sql_baseline_result'::regclass)
            """).map { (try $0.string(at: 0), try $0.string(at: 1)) }
        #expect(options.count == 4 && options.allSatisfy { !$0.1.contains("autovacuum_enabled") }, "\(options)")
    }

    @Test("bench --employees 120,60 --cold: a series in ascending order of size, with the change of employees/s from each size to the next; new sessions for each measurement and no warm-up")
    func benchSeriesGrowth() throws {
        let server = try TestDatabase.serverURL()
        defer {
            Self.dropDatabase("payrun_bench_e60", on: server)
            Self.dropDatabase("payrun_bench_e120", on: server)
        }
        guard let run = try PayrunBinary.run(
            ["bench", "--employees", "120,60", "--tenants", "2", "--threads", "2", "--chunk-size", "40", "--json", "--cold",
             "--compute-sample", "50", "--database-url", server, "--baseline-sql", Self.baselineSQL], input: "") else { return }
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("warm-up"), "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let sizes = object?["sizes"] as? [[String: Any]] ?? []
        #expect(sizes.compactMap { Self.number($0, "employees") } == [120, 60], "in the order given")
        for size in sizes {
            #expect(size["sessions"] as? String == "new for each measurement (--cold)")
            #expect(size["warmUpPayrunWallSeconds"] is NSNull && size["warmUpFloorWallSeconds"] is NSNull)
        }
        let growth = object?["growth"] as? [[String: Any]] ?? []
        #expect(growth.count == 1)
        guard sizes.count == 2, let step = growth.first else { return }
        #expect(Self.number(step, "fromEmployees") == 60 && Self.number(step, "toEmployees") == 120)
        let small = Self.number(sizes[1], "payrun", "employeesPerSecond") ?? 0, large = Self.number(sizes[0], "payrun", "employeesPerSecond") ?? 0
        #expect(small > 0 && large > 0)
        // The JSON rounds employees/s to 0.1 and the change to 0.001; the change is of the unrounded rates.
        let change = Self.number(step, "employeesPerSecondChange") ?? .nan
        #expect(abs(change - (large / small - 1)) <= 0.0015 + (large / small) * 0.2 / small, "\(change) against \(large) / \(small) − 1")
    }

    @Test("bench --worker-role payrun_worker: the month-end's workers run under row-level security and calculate every run; a role that cannot be set stops the bench before it starts")
    func benchWorkerRole() throws {
        let server = try TestDatabase.serverURL()
        defer { Self.dropDatabase("payrun_bench_e90", on: server) }
        let arguments = ["bench", "--employees", "90", "--tenants", "2", "--threads", "2", "--chunk-size", "30", "--json",
                         "--compute-sample", "40", "--database-url", server, "--baseline-sql", Self.baselineSQL]
        guard let run = try PayrunBinary.run(arguments + ["--worker-role", "payrun_worker"], input: "") else { return }
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(run.stderr.contains("workers as role payrun_worker"))
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let size = (object?["sizes"] as? [[String: Any]])?.first
        let payrun = size?["payrun"] as? [String: Any]
        #expect(payrun?["workerRole"] as? String == "payrun_worker" && payrun?["rowSecurityActive"] as? Bool == true)
        // Migrated by a superuser: the workers COPY as payrun_payslip_writer (0022).
        #expect(payrun?["payslipsCopiedAsWriterRole"] as? Bool == true)
        let runs = Self.number(size, "payrun", "runs") ?? 0
        #expect(runs >= 2 && Self.number(size, "payrun", "runsCalculated") == runs)
        let computed = Self.number(size, "employeesComputed") ?? 0
        #expect(computed >= 60 && Self.number(size, "payrun", "payslips") == computed)

        for role in ["payrun_no_such_role", "payrun worker"] {
            guard let refused = try PayrunBinary.run(arguments + ["--worker-role", role], input: "") else { return }
            #expect(refused.exitCode != 0)
            #expect(refused.stderr.contains("worker") && refused.stderr.contains(role.split(separator: " ")[0]), "\(refused.stderr)")
            #expect(!refused.stderr.contains("month-end done"), "refused before the month-end")
        }
    }

    @Test("bench queue --json with tiny counts: empty and recalculation jobs at 1 and 2 threads, ordered latency percentiles")
    func benchQueue() throws {
        let server = try TestDatabase.serverURL()
        guard let run = try PayrunBinary.run(
            ["bench", "queue", "--jobs", "300", "--batch", "50", "--employees", "30", "--tenants", "2", "--latency-samples", "10", "--json",
             "--database-url", server], input: "") else { return }
        #expect(run.exitCode == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let empty = object?["emptyJobs"] as? [[String: Any]] ?? []
        #expect(empty.compactMap { Self.number($0, "threads") } == [1, 2])
        #expect(empty.allSatisfy { Self.number($0, "jobs") == 300 && (Self.number($0, "jobsPerSecond") ?? 0) > 0 })
        let recalc = object?["recalculationJobs"] as? [[String: Any]] ?? []
        #expect(recalc.compactMap { Self.number($0, "threads") } == [1, 2])
        #expect(recalc.allSatisfy { Self.number($0, "jobs") == 30 && (Self.number($0, "jobsPerSecond") ?? 0) > 0 })
        let p50 = Self.number(object, "claimLatencyMs", "p50") ?? -1, p90 = Self.number(object, "claimLatencyMs", "p90") ?? -1
        let p99 = Self.number(object, "claimLatencyMs", "p99") ?? -1
        #expect(p50 > 0 && p50 <= p90 && p90 <= p99)
        #expect(Self.number(object, "claimLatencyMs", "samples") == 10)
        #expect(Self.number(object, "payslipRevisions", "max") == 3, "month-end, then two recalculations of every employee")
    }

    static let python3: String? = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test("chart.py turns a bench JSON series into a PNG (signature, IHDR size)",
          .enabled(if: python3 != nil, "python3 is not installed: chart.py cannot be tested here"))
    func chart() throws {
        guard let python3 = Self.python3 else { return }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("payrun-chart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let sample = """
            {"machine": {"cores": 2, "commit": "abc1234", "date": "2026-11-22T06:00:00Z"},
             "sizes": [
              {"employees": 1000, "payrun": {"employeesPerSecond": 4000}, "floor": {"employeesPerSecond": 9000}, "baseline": {"employeesPerSecond": 3000}},
              {"employees": 10000, "payrun": {"employeesPerSecond": 12000}, "floor": {"employeesPerSecond": 20000}, "baseline": {"employeesPerSecond": 3500}},
              {"employees": 100000, "payrun": {"employeesPerSecond": 15000}, "floor": {"employeesPerSecond": 24000}, "baseline": {"employeesPerSecond": 3300}}
             ]}
            """
        let input = dir.appendingPathComponent("bench.json"), output = dir.appendingPathComponent("chart.png")
        try Data(sample.utf8).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python3)
        process.arguments = [Self.repository.appendingPathComponent("benchmarks/chart.py").path, input.path, output.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let png = [UInt8](try Data(contentsOf: output))
        #expect(png.count > 1000)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        guard png.count > 33 else { return }
        #expect(Array(png[12..<16]) == Array("IHDR".utf8))
        func be32(_ at: Int) -> Int { png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        #expect(be32(8) == 13)
        #expect(be32(16) == 960 && be32(20) == 600)
        #expect(png[24] == 8 && png[25] == 2, "8-bit RGB")
        #expect(Array(png.suffix(8).prefix(4)) == Array("IEND".utf8))
    }
}

/// Whether this kernel reports steal time (the eighth number of /proc/stat's `cpu` line).
enum MachineSteal {
    static var reported: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return false }
        return line.split(separator: " ").count >= 9
    }
}
