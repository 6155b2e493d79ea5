import Dispatch
import Foundation
import Synchronization

/// What this machine gives two threads at the moment, measured with a fixed piece of work that
/// has nothing of payrun in it: integer mixing over a 4 KiB table (in L1, no allocation, no
/// shared writes), first on the calling thread alone, then the same amount on each of `threads`
/// threads at once through `DispatchQueue.concurrentPerform`, as `BatchCalculator` runs, each side
/// twice. The speed-up is `threads` × the faster one-thread time ÷ the faster all-threads time:
/// `threads` on cores of their own, less when the host gives the vCPUs less than a core each (on
/// this VM at times about 1 for two: RESULTS, session 13), more only when the one-thread side lost
/// its core to another process both times. `payrun bench` takes one right before each compute pair, so that a
/// compute speed-up can be read against what the machine gave at that moment.
enum ParallelProbe {
    /// Iterations of `work` per thread: ≈ 3 ms on this VM, the size of a packed job's compute.
    static let iterations = 3_000_000

    /// The probe's speed-up at `threads` (≥ 2), or nil for one thread or a clock that did not move.
    static func speedUp(threads: Int, iterations: Int = iterations) -> Double? {
        guard threads >= 2 else { return nil }
        // Every result goes into one word, once per thread at its end, so the work cannot be left out.
        let sink = Atomic<UInt64>(0)
        // Each side twice, the faster counting: a side that lost its core for a moment to another
        // process (the tests run suites in parallel; a month-end leaves a checkpoint behind) would
        // otherwise read as the machine's speed.
        var one = Double.infinity, all = Double.infinity
        for _ in 0..<2 {
            let started = ContinuousClock.now
            sink.bitwiseXor(work(seed: 1, iterations: iterations), ordering: .relaxed)
            one = min(one, seconds(started.duration(to: .now)))
        }
        // Wake the pool's threads first: a worker parked while its vCPU idled can take milliseconds
        // to start on this VM (RESULTS, session 13), which is latency, not what two threads can do.
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            sink.bitwiseXor(work(seed: UInt64(index + 7), iterations: iterations / 64), ordering: .relaxed)
        }
        for _ in 0..<2 {
            let started = ContinuousClock.now
            DispatchQueue.concurrentPerform(iterations: threads) { index in
                sink.bitwiseXor(work(seed: UInt64(index + 1), iterations: iterations), ordering: .relaxed)
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
}
