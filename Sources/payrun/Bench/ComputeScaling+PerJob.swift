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
    /// `threads`, right after the load: the inputs are the ones just decoded, as in the month-end,
    /// not 50,000 inputs loaded long before (the batch measurement above, whose one-thread side
    /// streams every input from memory).
    ///
    /// `repetitions` rounds, each over every job: a job's repetitions are a round's length apart
    /// (seconds), not milliseconds. The best time of each parallelism per job counts, summed over
    /// the jobs, and a best of five only filters out what lasts less than the five: until session
    /// 14 a job's five pairs ran back to back, and in run h a slow phase of the VM lasting some
    /// four seconds (its probe 1.68 instead of 1.95) held every pair of nine jobs (pairs 1.1–1.2).
    /// Each round loads the job again right before its pair (the inputs just decoded, as above).
    /// The two parallelisms alternate, the first of them changing from job to job and round to
    /// round. Each (job, round) is also a pair (its one-thread time over its two-thread time,
    /// taken milliseconds apart): `pairSpeedUpMedian` is their median, each pair weighted by its
    /// job's employees.
    struct PerJob {
        /// One (job, round) measurement: the job's two walls and CPU-seconds, taken milliseconds
        /// apart, and the probes taken right before them.
        struct Pair {
            var job: Int
            var round: Int
            var employees: Int
            var one: Double, all: Double
            var oneCPU: Double, allCPU: Double
            var probe: ParallelProbe.Reading?
            var speedUp: Double? { all > 0 ? one / all : nil }
            var weight: Double { Double(employees) }
        }

        /// Every measurement, in the order run (round by round); every figure below derives from them.
        var measured: [Pair] = []

        /// The best time of each parallelism per job, summed over the jobs.
        var oneCoreSeconds: Double { bests.reduce(0) { $0 + $1.one } }
        var allCoresSeconds: Double { bests.reduce(0) { $0 + $1.all } }
        var speedUp: Double { allCoresSeconds > 0 ? oneCoreSeconds / allCoresSeconds : 0 }
        /// The jobs measured at both parallelisms and their employees.
        var jobs: Int { bests.count }
        var employees: Int { bests.reduce(0) { $0 + $1.employees } }
        private var bests: [(one: Double, all: Double, employees: Int)] {
            var byJob: [Int: (one: Double, all: Double, employees: Int)] = [:]
            for p in timedPairs {
                let b = byJob[p.job] ?? (.infinity, .infinity, p.employees)
                byJob[p.job] = (min(b.one, p.one), min(b.all, p.all), p.employees)
            }
            return byJob.keys.sorted().compactMap { byJob[$0] }
        }

        /// The measurements with a two-thread time: the pairs.
        private var timedPairs: [Pair] { measured.filter { $0.all > 0 } }
        /// Every (job, round) pair's speed-up with its job's employee count as weight.
        var pairs: [(value: Double, weight: Double)] { timedPairs.map { ($0.one / $0.all, $0.weight) } }
        var pairSpeedUpMedian: Double? { weightedMedian(pairs) }
        /// For each pair, in the order run: its job (an index into the sample's jobs), its round,
        /// its one-thread and its `threads` wall seconds.
        var pairJobs: [Int] { timedPairs.map(\.job) }
        var pairRounds: [Int] { timedPairs.map(\.round) }
        var pairWalls: [(one: Double, all: Double)] { timedPairs.map { ($0.one, $0.all) } }
        /// Every pair's process CPU-seconds at `threads` over those at one thread (same inputs, same
        /// weights as `pairs`): above 1 the same work cost more CPU on more threads.
        var cpuRatios: [(value: Double, weight: Double)] { measured.filter { $0.oneCPU > 0 }.map { ($0.allCPU / $0.oneCPU, $0.weight) } }
        var cpuRatioMedian: Double? { weightedMedian(cpuRatios) }
        /// `ParallelProbe`'s latency-bound speed-up taken right before each pair (same weights as `pairs`).
        var probes: [(value: Double, weight: Double)] { measured.compactMap { p in p.probe.map { ($0.latencyBound, p.weight) } } }
        var probeSpeedUpMedian: Double? { weightedMedian(probes) }
        /// Each pair's speed-up over the probe's taken right before it (same weights): the share of
        /// what the machine gave two threads at that moment that the calculator turned into speed.
        var relativeSpeedUps: [(value: Double, weight: Double)] {
            measured.compactMap { p in p.probe.flatMap { probe in p.speedUp.map { ($0 / probe.latencyBound, p.weight) } } }
        }
        var relativeSpeedUpMedian: Double? { weightedMedian(relativeSpeedUps) }
        /// The same two with `ParallelProbe`'s throughput-bound workload, taken right after the other.
        var throughputProbes: [(value: Double, weight: Double)] { measured.compactMap { p in p.probe.map { ($0.throughputBound, p.weight) } } }
        var throughputProbeSpeedUpMedian: Double? { weightedMedian(throughputProbes) }
        var throughputRelativeSpeedUps: [(value: Double, weight: Double)] {
            measured.compactMap { p in p.probe.flatMap { probe in p.speedUp.map { ($0 / probe.throughputBound, p.weight) } } }
        }
        var throughputRelativeSpeedUpMedian: Double? { weightedMedian(throughputRelativeSpeedUps) }
        /// Each round's speed-up over the whole sample: the round's one-thread walls summed over
        /// its `threads` walls summed (each job's two sides milliseconds apart), in round order.
        /// Unlike `speedUp`, whose best one-thread and best two-thread times of a job may come
        /// from different rounds, i.e. from different states of the VM (session 15: a lone vCPU
        /// at times has a whole core, two never do), both sides of a round's figure are taken at
        /// the same moments.
        var roundSpeedUps: [Double] {
            var sums: [Int: (one: Double, all: Double)] = [:]
            for p in timedPairs {
                sums[p.round, default: (0, 0)].one += p.one
                sums[p.round, default: (0, 0)].all += p.all
            }
            return sums.keys.sorted().compactMap { sums[$0].flatMap { $0.all > 0 ? $0.one / $0.all : nil } }
        }
        /// The median of `roundSpeedUps` (the lower middle one for an even count).
        var roundSpeedUpMedian: Double? { roundSpeedUps.isEmpty ? nil : median(roundSpeedUps, by: { $0 }) }

        static func run(on connection: PostgresConnection, threads: Int, sampleMax: Int, repetitions: Int) throws -> PerJob {
            // The jobs of the sample: whole jobs, in order, until `sampleMax` employees are planned.
            var sample: [[MonthEndJobs.Part]] = []
            var planned = 0
            for job in try MonthEndJobs.read(on: connection) where planned < sampleMax && job.first != nil {
                sample.append(job)
                planned += job.reduce(0) { $0 + $1.employees }
            }
            var result = PerJob()
            for round in 0..<repetitions {
                for (index, job) in sample.enumerated() {
                    let inputs = try validInputs(of: job, on: connection)
                    if inputs.isEmpty { continue }
                    var pair = Pair(job: index, round: round, employees: inputs.count, one: 0, all: 0, oneCPU: 0, allCPU: 0,
                                    probe: ParallelProbe.reading(threads: threads))
                    for parallelism in (index + round) % 2 == 0 ? [1, threads] : [threads, 1] {
                        let timing = timedCalculation(inputs, parallelism: parallelism)
                        if parallelism == 1 { (pair.one, pair.oneCPU) = (timing.wall, timing.cpu) } else { (pair.all, pair.allCPU) = (timing.wall, timing.cpu) }
                    }
                    result.measured.append(pair)
                }
            }
            return result
        }

        /// The valid inputs of `job`, loaded as its worker loaded them (one transaction, the parts together).
        static func validInputs(of job: [MonthEndJobs.Part], on connection: PostgresConnection) throws -> [PayrollInput] {
            guard let tenant = job.first?.tenant else { return [] }
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
            return inputs
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
