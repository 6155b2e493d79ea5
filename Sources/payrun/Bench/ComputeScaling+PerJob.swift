import Foundation
import PayrollEngine
import PayrollRules
import PayrollStore
import PostgresClient

extension ComputeScaling {
    /// The compute phase as the month-end runs it: job by job, the month-end's chunk jobs
    /// (`MonthEndJobs`, up to `sampleMax` employees) are loaded as their worker loaded them
    /// (`ChunkLoader.loadParts`, untimed) and each job's valid inputs are computed with one
    /// `BatchCalculator.calculate` call, as `ChunkProcessor.processParts` does, at parallelism 1 and
    /// `threads`, `repetitions` times each, right after the load: the inputs are the ones just
    /// decoded, as in the month-end, not 50,000 inputs loaded long before (the batch measurement
    /// above, whose one-thread side streams every input from memory). The two parallelisms
    /// alternate, the first of them changing from job to job and repetition to repetition; the
    /// best time of each parallelism per job counts, summed over the jobs. Each repetition of a
    /// job is also a pair (its one-thread time over its two-thread time, taken milliseconds
    /// apart): `pairSpeedUpMedian` is their median, each pair weighted by its job's employees.
    struct PerJob {
        var employees: Int
        var jobs: Int
        var oneCoreSeconds: Double
        var allCoresSeconds: Double
        var speedUp: Double { allCoresSeconds > 0 ? oneCoreSeconds / allCoresSeconds : 0 }
        /// Every (job, repetition) pair's speed-up with its job's employee count as weight.
        var pairs: [(value: Double, weight: Double)] = []
        var pairSpeedUpMedian: Double? { weightedMedian(pairs) }
        /// Every pair's process CPU-seconds at `threads` over those at one thread (same inputs, same
        /// weights as `pairs`): above 1 the same work cost more CPU on more threads.
        var cpuRatios: [(value: Double, weight: Double)] = []
        var cpuRatioMedian: Double? { weightedMedian(cpuRatios) }
        /// `ParallelProbe`'s speed-up taken right before each pair (same weights as `pairs`).
        var probes: [(value: Double, weight: Double)] = []
        var probeSpeedUpMedian: Double? { weightedMedian(probes) }
        /// Each pair's speed-up over the probe's taken right before it (same weights): the share of
        /// what the machine gave two threads at that moment that the calculator turned into speed.
        var relativeSpeedUps: [(value: Double, weight: Double)] = []
        var relativeSpeedUpMedian: Double? { weightedMedian(relativeSpeedUps) }

        static func run(on connection: PostgresConnection, threads: Int, sampleMax: Int, repetitions: Int) throws -> PerJob {
            var employees = 0, jobs = 0
            var one = 0.0, all = 0.0
            var pairs: [(value: Double, weight: Double)] = []
            var cpuRatios: [(value: Double, weight: Double)] = []
            var probes: [(value: Double, weight: Double)] = [], relative: [(value: Double, weight: Double)] = []
            for job in try MonthEndJobs.read(on: connection) where employees < sampleMax {
                guard let tenant = job.first?.tenant else { continue }
                let chunks: [LoadedChunk] = try connection.transaction { c in
                    try TenantScope.set(tenant, on: c)
                    let selections = try job.map { part -> ChunkLoader.PartSelection in
                        guard let run = try PayrollRun.fetch(tenantId: part.tenant, runId: part.run, on: c) else {
                            throw CommandFailure("run \(part.run) vanished")
                        }
                        return ChunkLoader.PartSelection(run: run, from: part.from, to: part.to)
                    }
                    return try ChunkLoader.loadParts(selections, on: c)
                }
                var inputs: [PayrollInput] = []
                for chunk in chunks {
                    for e in chunk.employees { if case .success(let input) = e.input { inputs.append(input) } }
                }
                if inputs.isEmpty { continue }
                var best = (one: Double.infinity, all: Double.infinity)
                for repetition in 0..<repetitions {
                    let probe = ParallelProbe.speedUp(threads: threads)
                    let order = (jobs + repetition) % 2 == 0 ? [1, threads] : [threads, 1]
                    var pair = (one: 0.0, all: 0.0, oneCPU: 0.0, allCPU: 0.0)
                    for parallelism in order {
                        let timing = timedCalculation(inputs, parallelism: parallelism)
                        if parallelism == 1 {
                            best.one = min(best.one, timing.wall)
                            (pair.one, pair.oneCPU) = (timing.wall, timing.cpu)
                        } else {
                            best.all = min(best.all, timing.wall)
                            (pair.all, pair.allCPU) = (timing.wall, timing.cpu)
                        }
                    }
                    if pair.all > 0 { pairs.append((pair.one / pair.all, Double(inputs.count))) }
                    if let probe {
                        probes.append((probe, Double(inputs.count)))
                        if pair.all > 0 { relative.append((pair.one / pair.all / probe, Double(inputs.count))) }
                    }
                    if pair.oneCPU > 0 { cpuRatios.append((pair.allCPU / pair.oneCPU, Double(inputs.count))) }
                }
                one += best.one
                all += best.all
                employees += inputs.count
                jobs += 1
            }
            return PerJob(employees: employees, jobs: jobs, oneCoreSeconds: one, allCoresSeconds: all, pairs: pairs, cpuRatios: cpuRatios,
                          probes: probes, relativeSpeedUps: relative)
        }
    }

    /// Wall seconds of one `BatchCalculator.calculate` of `inputs`, and the CPU-seconds the process
    /// used meanwhile (every thread: `CLOCK_PROCESS_CPUTIME_ID`); the results are freed after the
    /// clocks stop.
    static func timedCalculation(_ inputs: [PayrollInput], parallelism: Int) -> (wall: Double, cpu: Double) {
        let cpuStarted = processCPUSeconds()
        let started = ContinuousClock.now
        let results = BatchCalculator.calculate(inputs, parallelism: parallelism)
        let elapsed = seconds(started.duration(to: .now))
        let cpu = processCPUSeconds() - cpuStarted
        precondition(results.count == inputs.count)
        return (elapsed, cpu)
    }

    /// CPU-seconds of this process so far, all threads.
    static func processCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

/// The weighted median of `values`: the smallest value at which the weights of the values up to it
/// reach half of all the weight (the lower one when two are tied at exactly half, as `median`).
/// nil when there is no positive weight.
func weightedMedian(_ values: [(value: Double, weight: Double)]) -> Double? {
    let sorted = values.filter { $0.weight > 0 }.sorted { $0.value < $1.value }
    let total = sorted.reduce(0) { $0 + $1.weight }
    guard total > 0 else { return nil }
    var cumulative = 0.0
    for value in sorted {
        cumulative += value.weight
        if cumulative * 2 >= total { return value.value }
    }
    return sorted.last?.value
}
