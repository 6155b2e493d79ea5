import Foundation

/// The figures of one store size.
struct BenchEntry {
    var store: BenchStore
    var threads: Int
    var chunkSize: Int
    var payrun: PayrunMeasurement
    var floor: FloorMeasurement
    var baseline: BaselineMeasurement
    var scaling: ComputeScaling
    /// Every repetition's wall time (`--repeat`), in the order run; `payrun` and `floor` are the medians.
    var payrunWallSeconds: [Double] = []
    var floorWallSeconds: [Double] = []
    /// Every SQL baseline run's wall time (`--baseline-repeat`); `baseline` is the median.
    var baselineWallSeconds: [Double] = []
    /// Steal time and a throughput-bound probe around each repetition.
    var machine = RepetitionMachine()
    var loadAverage: String? = MachineInfo.current(repository: nil).loadAverage
    /// The untimed warm-up month-end's and floor's wall times, on new sessions (nil with `--cold`:
    /// then every measurement ran on new sessions and there was no warm-up).
    var warmUp: (payrun: Double, floor: Double)? = nil

    var employeesPerSecond: Double { Double(payrun.employees) / payrun.wallSeconds }
    var shiftsPerSecond: Double { Double(store.shifts) / payrun.wallSeconds }
    var floorRatio: Double { payrun.wallSeconds / floor.wallSeconds }
    /// Payrun's wall time over the floor's for each alternated pair (month-end i, then floor i), in
    /// the order run: a pair runs within seconds, so a change of the machine's speed between
    /// repetitions (this VM's moves ±20 % within minutes) moves both sides of a pair alike, which the
    /// ratio of the two medians does not undo. Empty for a single run.
    var pairRatios: [Double] {
        guard payrunWallSeconds.count > 1 else { return [] }
        return zip(payrunWallSeconds, floorWallSeconds).compactMap { $1 > 0 ? $0 / $1 : nil }
    }
    /// The median of `pairRatios` (the lower middle one for an even count, as the other medians).
    var pairRatioMedian: Double? { pairRatios.isEmpty ? nil : median(pairRatios, by: { $0 }) }
    var baselineRatio: Double { payrun.wallSeconds / baseline.wallSeconds }
    /// Payrun's wall time over the SQL baseline's for each repetition that ran both (month-end i,
    /// floor i, baseline i: `payrun bench` runs baseline i right after floor i), in the order run.
    /// The baseline (one backend) and the month-end (every core) meet the VM's slow phases
    /// differently, so neighbours in time compare better than medians taken minutes apart. Empty
    /// unless both were repeated.
    var baselinePairRatios: [Double] {
        guard payrunWallSeconds.count > 1, baselineWallSeconds.count > 1 else { return [] }
        return zip(payrunWallSeconds, baselineWallSeconds).compactMap { $1 > 0 ? $0 / $1 : nil }
    }
    var baselinePairRatioMedian: Double? { baselinePairRatios.isEmpty ? nil : median(baselinePairRatios, by: { $0 }) }

    var perJobSpeedUpText: String {
        scaling.perJob.map { String(format: "%.2f×", $0.speedUp) + ($0.roundSpeedUpMedian.map { String(format: " (rounds %.2f×)", $0) } ?? "") } ?? "–"
    }
    /// The compute step's pair medians ("batch 1.88× (…), per job 1.86× (150 pairs …)") and CPU
    /// ratios, or nil when no pair was measured.
    var pairSpeedUpText: String? {
        guard let batch = scaling.pairSpeedUpMedian else { return nil }
        return String(format: "compute speed-up, median of pairs: batch %.2f× (%@)", batch,
                      scaling.pairSpeedUps.map { String(format: "%.2f", $0) }.joined(separator: ", "))
            + (scaling.perJob?.pairSpeedUpMedian.map { String(format: ", per job %.2f× (%d pairs, weighted by employees)", $0, scaling.perJob?.pairs.count ?? 0) } ?? "")
            + (scaling.cpuRatioMedian.map { String(format: "; CPU-seconds at %d threads over 1 thread for the same work: batch %.2f", scaling.threads, $0) } ?? "")
            + (scaling.perJob?.cpuRatioMedian.map { String(format: ", per job %.2f", $0) } ?? "")
            + (scaling.probeSpeedUpMedian.map { String(format: "; a fixed latency-bound workload on %d threads next to each pair (what the machine gave): batch %.2f×", scaling.threads, $0) } ?? "")
            + (scaling.perJob?.probeSpeedUpMedian.map { String(format: ", per job %.2f×", $0) } ?? "")
            + (scaling.perJob?.relativeSpeedUpMedian.map { String(format: "; per job pair ÷ its probe %.2f", $0) } ?? "")
            + (scaling.throughputProbeSpeedUpMedian.map { String(format: "; a throughput-bound one (two threads sharing a core's units read less): batch %.2f×", $0) } ?? "")
            + (scaling.perJob?.throughputProbeSpeedUpMedian.map { String(format: ", per job %.2f×", $0) } ?? "")
            + (scaling.perJob?.throughputRelativeSpeedUpMedian.map { String(format: "; per job pair ÷ it %.2f", $0) } ?? "")
    }

    static let phaseOrder = ["claim", "load", "compute", "write", "commit", "plan", "finish", "chunk_jobs"]

    var oneLine: String {
        String(format: "%@: %d employees in %.2f s = %.0f employees/s; floor %.2f s (×%.2f); SQL baseline %.2f s (×%.3f); compute speed-up %.2f× (batch), %@ (per job)",
               store.name, payrun.employees, payrun.wallSeconds, employeesPerSecond, floor.wallSeconds, floorRatio,
               baseline.wallSeconds, baselineRatio, scaling.speedUp, perJobSpeedUpText)
    }

    var json: [String: Any] {
        var phases: [String: Any] = [:]
        for (k, v) in payrun.phases { phases[k] = round3(v) }
        return [
            "database": store.name,
            "spec": ["tenants": store.spec.tenants, "employees": store.spec.employees, "shiftsPerEmployee": store.spec.shiftsPerEmployee,
                     "seed": store.spec.seed, "period": store.spec.period.description],
            "reusedStore": store.seedSeconds == nil,
            "seedSeconds": store.seedSeconds.map(round3) as Any,
            "databaseBytes": store.databaseBytes,
            "employees": store.employees,
            "employeesComputed": payrun.employees,
            "shifts": store.shifts,
            "threads": threads,
            "chunkSize": chunkSize,
            "repetitions": max(1, payrunWallSeconds.count),
            "sessions": warmUp == nil ? "new for each measurement (--cold)" : "kept between measurements, after a warm-up",
            "warmUpPayrunWallSeconds": warmUp.map { round3($0.payrun) } as Any,
            "warmUpFloorWallSeconds": warmUp.map { round3($0.floor) } as Any,
            "payrunWallSecondsAll": payrunWallSeconds.map(round3),
            "floorWallSecondsAll": floorWallSeconds.map(round3),
            "baselineWallSecondsAll": baselineWallSeconds.map(round3),
            "payrunStealSecondsAll": machine.payrun.stealSeconds.map { $0.map(round3) as Any },
            "floorStealSecondsAll": machine.floor.stealSeconds.map { $0.map(round3) as Any },
            "baselineStealSecondsAll": machine.baseline.stealSeconds.map { $0.map(round3) as Any },
            "payrunThroughputProbesBefore": machine.payrun.throughputProbesBefore.map { $0.map(round3) as Any },
            "payrunAutovacuumRunsAll": machine.payrun.autovacuumRuns.map { $0 as Any },
            "floorAutovacuumRunsAll": machine.floor.autovacuumRuns.map { $0 as Any },
            "baselineAutovacuumRunsAll": machine.baseline.autovacuumRuns.map { $0 as Any },
            "floorThroughputProbesBefore": machine.floor.throughputProbesBefore.map { $0.map(round3) as Any },
            "payrun": [
                "wallSeconds": round3(payrun.wallSeconds),
                "employeesPerSecond": round1(employeesPerSecond),
                "shiftsPerSecond": round1(shiftsPerSecond),
                "runs": payrun.runs, "runsCalculated": payrun.runsCalculated, "chunks": payrun.chunks,
                "payslips": payrun.payslips, "employeesFailed": payrun.employeesFailed,
                "shiftsLoaded": payrun.shiftsLoaded as Any,
                "claims": payrun.claims, "jobsClaimed": payrun.jobsClaimed,
                "phasesSeconds": phases,
                "phasesNote": payrun.chunkTimingsAvailable
                    ? "thread seconds summed over chunks: claim = claim statements that returned jobs; load/compute/write/finish from payrun.run_chunks; commit = chunk job time − load − compute − write (bookkeeping, job completion, COMMIT); plan = run.plan jobs"
                    : "payrun.run_chunks has no phase columns (migration 0010 missing): chunk_jobs = whole chunk job time",
                "peakRSSBytes": payrun.peakRSSKiB.map { $0 * 1024 } as Any,
                "peakRSSMethod": payrun.peakRSSMethod,
                "workerRole": payrun.workerRole as Any,
                "rowSecurityActive": payrun.rowSecurityActive,
                "payslipsCopiedAsWriterRole": payrun.copiesAsWriterRole,
            ] as [String: Any],
            "floor": [
                "wallSeconds": round3(floor.wallSeconds), "chunks": floor.chunks, "shiftsOut": floor.shiftsOut, "payslipsIn": floor.payslipsIn,
                "employeesPerSecond": round1(Double(payrun.employees) / floor.wallSeconds),
                "ratio": round3(floorRatio),
                "pairRatios": pairRatios.map(round3),
                "pairRatioMedian": pairRatioMedian.map(round3) as Any,
            ] as [String: Any],
            "baseline": [
                "wallSeconds": round3(baseline.wallSeconds), "employees": baseline.employees, "script": baseline.path,
                "employeesPerSecond": round1(Double(payrun.employees) / baseline.wallSeconds),
                "ratio": round3(baselineRatio),
                "pairRatios": baselinePairRatios.map(round3),
                "pairRatioMedian": baselinePairRatioMedian.map(round3) as Any,
            ] as [String: Any],
            "computeScaling": [
                "employees": scaling.employees, "threads": scaling.threads,
                "oneThreadSeconds": round3(scaling.oneCoreSeconds), "allThreadsSeconds": round3(scaling.allCoresSeconds),
                "speedUp": round3(scaling.speedUp),
                "pairSpeedUps": scaling.pairSpeedUps.map(round3),
                "pairSpeedUpMedian": scaling.pairSpeedUpMedian.map(round3) as Any,
                "cpuRatios": scaling.cpuRatios.map(round3),
                "cpuRatioMedian": scaling.cpuRatioMedian.map(round3) as Any,
                "probeSpeedUps": scaling.probeSpeedUps.map(round3),
                "probeSpeedUpMedian": scaling.probeSpeedUpMedian.map(round3) as Any,
                "throughputProbeSpeedUps": scaling.throughputProbeSpeedUps.map(round3),
                "throughputProbeSpeedUpMedian": scaling.throughputProbeSpeedUpMedian.map(round3) as Any,
                "perJob": scaling.perJob.map { [
                    "employees": $0.employees, "jobs": $0.jobs,
                    "oneThreadSeconds": round3($0.oneCoreSeconds), "allThreadsSeconds": round3($0.allCoresSeconds),
                    "speedUp": round3($0.speedUp),
                    "pairs": $0.pairs.count,
                    "pairSpeedUps": $0.pairs.map { round3($0.value) },
                    "pairEmployees": $0.pairs.map { Int($0.weight) },
                    "pairJobs": $0.pairJobs,
                    "pairRounds": $0.pairRounds,
                    "pairOneThreadSeconds": $0.pairWalls.map { round6($0.one) },
                    "pairAllThreadsSeconds": $0.pairWalls.map { round6($0.all) },
                    "roundSpeedUps": $0.roundSpeedUps.map(round3),
                    "roundSpeedUpMedian": $0.roundSpeedUpMedian.map(round3) as Any,
                    "pairSpeedUpMedian": $0.pairSpeedUpMedian.map(round3) as Any,
                    "cpuRatioMedian": $0.cpuRatioMedian.map(round3) as Any,
                    "probeSpeedUps": $0.probes.map { round3($0.value) },
                    "probeSpeedUpMedian": $0.probeSpeedUpMedian.map(round3) as Any,
                    "relativeSpeedUps": $0.relativeSpeedUps.map { round3($0.value) },
                    "relativeSpeedUpMedian": $0.relativeSpeedUpMedian.map(round3) as Any,
                    "throughputProbeSpeedUps": $0.throughputProbes.map { round3($0.value) },
                    "throughputProbeSpeedUpMedian": $0.throughputProbeSpeedUpMedian.map(round3) as Any,
                    "throughputRelativeSpeedUps": $0.throughputRelativeSpeedUps.map { round3($0.value) },
                    "throughputRelativeSpeedUpMedian": $0.throughputRelativeSpeedUpMedian.map(round3) as Any,
                ] as [String: Any] } as Any,
            ] as [String: Any],
            "loadAverage": loadAverage as Any,
        ]
    }
}

func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
func round6(_ x: Double) -> Double { (x * 1_000_000).rounded() / 1_000_000 }
func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }

/// The whole series: a Markdown table or one JSON object.
struct BenchReport {
    var machine: MachineInfo
    var entries: [BenchEntry]

    /// How payrun's employees/s changes from each size of the series to the next larger one
    /// (issue 5: "employees/s within 20 % of the 100,000-employee figure" is the 100k → 1M step):
    /// `change` = employees/s at `to` ÷ employees/s at `from` − 1. Sizes in ascending order,
    /// whatever order --employees gave them in; empty for a single size.
    var growth: [(from: Int, to: Int, change: Double)] {
        let sorted = entries.sorted { $0.store.employees < $1.store.employees }
        return zip(sorted, sorted.dropFirst()).compactMap { a, b in
            a.employeesPerSecond > 0 ? (a.store.employees, b.store.employees, b.employeesPerSecond / a.employeesPerSecond - 1) : nil
        }
    }

    func json() -> String {
        let object: [String: Any] = [
            "benchmark": "payrun bench",
            "machine": [
                "cores": machine.cores, "memoryBytes": machine.memoryKiB.map { $0 * 1024 } as Any,
                "loadAverageAtStart": machine.loadAverage as Any, "commit": machine.commit as Any, "date": machine.date,
                "host": machine.host,
            ] as [String: Any],
            "sizes": entries.map(\.json),
            "growth": growth.map { ["fromEmployees": $0.from, "toEmployees": $0.to, "employeesPerSecondChange": round3($0.change)] as [String: Any] },
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    func table() -> String {
        var lines: [String] = []
        lines.append("payrun bench — \(machine.date), commit \(machine.commit ?? "?"), \(machine.cores) cores, "
                     + "\((machine.memoryKiB ?? 0) / 1_048_576) GiB, load average at start \(machine.loadAverage ?? "?")")
        lines.append("")
        lines.append("| employees | shifts | wall s | employees/s | shifts/s | claim / load / compute / write / commit s | peak RSS MiB | compute speed-up: batch, per job | floor s (payrun ×) | SQL baseline s (payrun ×) |")
        lines.append("|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
        for e in entries {
            let p = e.payrun.phases
            let phaseText = ["claim", "load", "compute", "write", "commit"].map { p[$0].map { String(format: "%.2f", $0) } ?? "–" }
                .joined(separator: " / ") + (p["chunk_jobs"].map { String(format: " (chunk jobs %.2f)", $0) } ?? "")
            lines.append(String(format: "| %d (%d in period) | %d | %.2f | %.0f | %.0f | %@ | %@ | %.2f× (%d thr, %d emp), %@ | %.2f (×%.2f) | %.2f (×%.3f) |",
                                e.store.employees, e.payrun.employees, e.store.shifts, e.payrun.wallSeconds, e.employeesPerSecond, e.shiftsPerSecond, phaseText,
                                e.payrun.peakRSSKiB.map { String($0 / 1024) } ?? "–", e.scaling.speedUp, e.scaling.threads,
                                e.scaling.employees, e.perJobSpeedUpText, e.floor.wallSeconds, e.floorRatio, e.baseline.wallSeconds, e.baselineRatio))
        }
        for e in entries where e.payrunWallSeconds.count > 1 || e.baselineWallSeconds.count > 1 {
            lines.append("")
            lines.append("\(e.store.employees): medians of \(e.payrunWallSeconds.count) alternated runs; payrun "
                         + e.payrunWallSeconds.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " s; floor "
                         + e.floorWallSeconds.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " s; SQL baseline (median of "
                         + "\(e.baselineWallSeconds.count)) "
                         + e.baselineWallSeconds.map { String(format: "%.2f", $0) }.joined(separator: ", ") + " s"
                         + (e.pairRatioMedian.map { median in
                             "; payrun ÷ floor per pair " + e.pairRatios.map { String(format: "%.2f", $0) }.joined(separator: ", ")
                                 + String(format: " (median ×%.2f)", median)
                         } ?? "")
                         + (e.baselinePairRatioMedian.map { median in
                             "; SQL baseline ÷ payrun per pair " + e.baselinePairRatios.map { String(format: "%.2f", 1 / $0) }.joined(separator: ", ")
                                 + String(format: " (median %.2f× faster)", 1 / median)
                         } ?? ""))
        }
        for e in entries {
            func list(_ values: [Double?], _ format: String) -> String {
                values.map { $0.map { String(format: format, $0) } ?? "–" }.joined(separator: ", ")
            }
            let m = e.machine
            guard !(m.payrun.stealSeconds + m.floor.stealSeconds + m.baseline.stealSeconds).isEmpty else { continue }
            lines.append("")
            lines.append("\(e.store.employees): the VM around each run: steal CPU-s during payrun \(list(m.payrun.stealSeconds, "%.2f")), "
                         + "floor \(list(m.floor.stealSeconds, "%.2f")), SQL baseline \(list(m.baseline.stealSeconds, "%.2f")); "
                         + "a throughput-bound workload on \(e.threads) threads right before (2 on two cores, 1 when they share one): "
                         + "payrun \(list(m.payrun.throughputProbesBefore, "%.2f×")), floor \(list(m.floor.throughputProbesBefore, "%.2f×")); "
                         + "autovacuum runs during payrun \(list(m.payrun.autovacuumRuns.map { $0.map(Double.init) }, "%.0f")), "
                         + "floor \(list(m.floor.autovacuumRuns.map { $0.map(Double.init) }, "%.0f")), "
                         + "SQL baseline \(list(m.baseline.autovacuumRuns.map { $0.map(Double.init) }, "%.0f"))")
        }
        if !growth.isEmpty {
            lines.append("")
            lines.append("How employees/s changes with size: " + growth.map {
                String(format: "%d → %d %+.1f %%", $0.from, $0.to, $0.change * 100)
            }.joined(separator: "; ") + " (issue 5's target: 100000 → 1000000 within 20 %)")
        }
        for e in entries {
            if let text = e.pairSpeedUpText {
                lines.append("")
                lines.append("\(e.store.employees): \(text)")
            }
        }
        for e in entries {
            lines.append("")
            if let w = e.warmUp {
                lines.append(String(format: "%d: the workers and the floor's connections were kept between measurements (as a running worker's), after an untimed warm-up on new sessions: month-end %.2f s, floor %.2f s (×%.2f)",
                                    e.store.employees, w.payrun, w.floor, w.floor > 0 ? w.payrun / w.floor : 0))
            } else {
                lines.append("\(e.store.employees): new workers and new floor connections for each measurement (--cold), no warm-up")
            }
        }
        if let e = entries.first {
            lines.append("")
            lines.append("Month-end workers as \(e.payrun.workerRole.map { "role \($0)" } ?? "the bench's own role"): row-level security "
                         + (!e.payrun.rowSecurityActive ? "does not apply, payslips are COPYed into payrun.payslips directly"
                            : e.payrun.copiesAsWriterRole ? "applies, payslips are COPYed into payrun.payslips as payrun_payslip_writer (the path of production workers, members of payrun_worker)"
                            : "applies, payslips are inserted from column arrays (the path of production workers where payrun_payslip_writer is missing)"))
        }
        lines.append("")
        lines.append("Phases are thread-seconds summed over chunks (claim statements; load, compute, write from payrun.run_chunks; "
                     + "commit = the rest of each chunk job). Ratios are payrun's wall time divided by the floor's / the baseline's.")
        return lines.joined(separator: "\n")
    }
}
