import Dispatch
import Foundation
import Synchronization

/// What this machine gives two threads at the moment, measured with a fixed piece of work that
/// has nothing of payrun in it, first on the calling thread alone, then the same amount on each of
/// `threads` threads at once through `DispatchQueue.concurrentPerform`, as `BatchCalculator` runs,
/// each side twice. The speed-up is `threads` × the faster one-thread time ÷ the faster
/// all-threads time: `threads` on cores of their own, less when the host gives the vCPUs less than
/// a core each (on this VM at times about 1 for two: RESULTS, session 13), more only when the
/// one-thread side lost its core to another process both times. `payrun bench` takes one of each
/// workload right before each compute pair, so that a compute speed-up can be read against what
/// the machine gave at that moment.
///
/// Two workloads, because two threads on one core's two hardware threads (SMT) share its
/// execution units and not its latency: a single dependent chain leaves most of a core's units
/// idle, so it reads close to 2 on SMT siblings as on two cores, while independent chains keep
/// the units busy and read 2 only on two cores. On this VM (session 15: a C version of both,
/// eighteen rounds in two runs minutes apart) the dependent chain read 1.86–1.96 while the
/// independent chains read 1.31–2.04: their two-thread time stayed at 1.9–2.1 ms per thread while
/// the one-thread time moved between 1.32 and 1.90 ms, and the lowest speed-ups came with the
/// fastest one-thread times. The two vCPUs share one core's execution units much of the time.
/// payrun's calculator lies between the two (branches, loads and stores, short dependent chains).
enum ParallelProbe {
    enum Workload: Sendable {
        /// One xorshift64 chain mixing in a byte of a 4 KiB table (in L1, no allocation, no
        /// shared writes) at each step: every step waits for the one before (latency-bound).
        case latencyBound
        /// Eight independent xorshift64 chains, no memory: as many instructions in flight as the
        /// core can issue (throughput-bound).
        case throughputBound

        /// Iterations per thread: ≈ 3 ms each on this VM, the size of a packed job's compute.
        var iterations: Int {
            switch self {
            case .latencyBound: 3_000_000
            case .throughputBound: 1_000_000
            }
        }
    }

    /// Iterations of `work` per thread: ≈ 3 ms on this VM, the size of a packed job's compute.
    static let iterations = Workload.latencyBound.iterations

    /// Both workloads' speed-ups at `threads` (≥ 2), measured one right after the other.
    struct Reading: Sendable {
        var latencyBound: Double
        var throughputBound: Double
    }

    /// One reading of each workload, or nil for one thread or a clock that did not move.
    static func reading(threads: Int) -> Reading? {
        guard let dependent = speedUp(threads: threads, workload: .latencyBound),
              let independent = speedUp(threads: threads, workload: .throughputBound) else { return nil }
        return Reading(latencyBound: dependent, throughputBound: independent)
    }
    /// The probe's speed-up at `threads` (≥ 2), or nil for one thread or a clock that did not move.
    static func speedUp(threads: Int, workload: Workload = .latencyBound, iterations: Int? = nil) -> Double? {
        let iterations = iterations ?? workload.iterations
        let run: @Sendable (UInt64, Int) -> UInt64 = switch workload {
        case .latencyBound: { Self.work(seed: $0, iterations: $1) }
        case .throughputBound: { Self.independentChains(seed: $0, iterations: $1) }
        }
        guard threads >= 2 else { return nil }
        // Every result goes into one word, once per thread at its end, so the work cannot be left out.
        let sink = Atomic<UInt64>(0)
        // Each side twice, the faster counting: a side that lost its core for a moment to another
        // process (the tests run suites in parallel; a month-end leaves a checkpoint behind) would
        // otherwise read as the machine's speed.
        var one = Double.infinity, all = Double.infinity
        for _ in 0..<2 {
            let started = ContinuousClock.now
            sink.bitwiseXor(run(1, iterations), ordering: .relaxed)
            one = min(one, seconds(started.duration(to: .now)))
        }
        // Wake the pool's threads first: a worker parked while its vCPU idled can take milliseconds
        // to start on this VM (RESULTS, session 13), which is latency, not what two threads can do.
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            sink.bitwiseXor(run(UInt64(index + 7), iterations / 64), ordering: .relaxed)
        }
        for _ in 0..<2 {
            let started = ContinuousClock.now
            DispatchQueue.concurrentPerform(iterations: threads) { index in
                sink.bitwiseXor(run(UInt64(index + 1), iterations), ordering: .relaxed)
            }
            all = min(all, seconds(started.duration(to: .now)))
        }
        if sink.load(ordering: .relaxed) == 0x5eed { FileHandle.standardError.write(Data()) }
        guard one > 0, all > 0 else { return nil }
        return Double(threads) * one / all
    }

    /// xorshift64 steps, each mixing in a byte of a 4 KiB table it also updates.
    @inline(never)
    static func work(seed: UInt64, iterations: Int) -> UInt64 {
        var table = [UInt8](repeating: 0, count: 4096)
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var acc: UInt64 = 0
        table.withUnsafeMutableBufferPointer { t in
            for _ in 0..<iterations {
                x ^= x << 13
                x ^= x >> 7
                x ^= x << 17
                let i = Int(truncatingIfNeeded: x) & 4095
                acc = acc &+ UInt64(t[i]) &+ x
                t[i] = UInt8(truncatingIfNeeded: acc)
            }
        }
        return acc
    }

    /// Eight independent xorshift64 chains, summed at the end.
    @inline(never)
    static func independentChains(seed: UInt64, iterations: Int) -> UInt64 {
        let s = seed &* 0x9E37_79B9_7F4A_7C15
        var (a, b, c, d) = (s | 1, s &+ 3, s &+ 5, s &+ 7)
        var (e, f, g, h) = (s &+ 9, s &+ 11, s &+ 13, s &+ 15)
        @inline(__always) func step(_ x: inout UInt64) { x ^= x << 13; x ^= x >> 7; x ^= x << 17 }
        for _ in 0..<iterations {
            step(&a); step(&b); step(&c); step(&d)
            step(&e); step(&f); step(&g); step(&h)
        }
        return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h
    }
}
