import Dispatch
import Foundation
import JobQueue
import PostgresClient
import Synchronization

/// The empty-job measurements of `payrun bench queue` (the logic of benchmarks/queue-throughput):
/// claim+complete throughput of T threads and the wake-up latency of an idle claimer.
enum QueueBenchmark {
    struct Throughput {
        var threads: Int
        var jobs: Int
        var seconds: Double
        var jobsPerSecond: Double { seconds > 0 ? Double(jobs) / seconds : 0 }
    }

    struct Latency {
        var samples: Int
        var p50, p90, p99, max: Double
    }

    /// Enqueues `count` jobs of kind `bench.empty` spread over `tenantIds` in batches
    /// of 1,000; returns the seconds it took.
    static func enqueueEmpty(_ count: Int, tenantIds: [Int64], on connection: PostgresConnection) throws -> Double {
        let started = ContinuousClock.now
        var next = 0
        while next < count {
            let n = min(1000, count - next)
            let base = next
            _ = try JobQueue.enqueue((0..<n).map { NewJob(kind: "bench.empty", tenantId: tenantIds[(base + $0) % tenantIds.count]) }, on: connection)
            next += n
        }
        return seconds(started.duration(to: .now))
    }

    /// T threads, each its own connection (prepared like the worker's claimer), claim `batch` and
    /// complete them until a claim comes back empty; the clock runs from the first claim to the
    /// last completion.
    static func drainEmpty(url: String, threads: Int, batch: Int) throws -> Throughput {
        let done = Mutex<Int>(0)
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let own = try PostgresConnection(url: url)
                    defer { own.close() }
                    try JobQueue.prepareSession(on: own)
                    ready.signal()
                    go.wait()
                    var mine = 0
                    while true {
                        let jobs = try JobQueue.claim(on: own, workerId: "bench-\(index)", limit: batch, leaseSeconds: 60,
                                                      kinds: ["bench.empty"])
                        if jobs.isEmpty { break }
                        try JobQueue.complete(jobs, on: own)
                        mine += jobs.count
                    }
                    done.withLock { $0 += mine }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    ready.signal()
                }
            }.start()
        }
        for _ in 0..<threads { ready.wait() }
        let started = ContinuousClock.now
        for _ in 0..<threads { go.signal() }
        group.wait()
        let elapsed = seconds(started.duration(to: .now))
        if let failure = failures.withLock({ $0.first }) { throw CommandFailure("queue bench: \(failure)") }
        return Throughput(threads: threads, jobs: done.withLock { $0 }, seconds: elapsed)
    }

    /// An idle claimer LISTENs; `samples` times one job is enqueued (committed) and the time from
    /// that commit to the claimer holding it is recorded. The table is VACUUMed first, as
    /// autovacuum does in steady state.
    static func wakeUpLatency(url: String, samples: Int, tenantIds: [Int64], on connection: PostgresConnection) throws -> Latency {
        try connection.execute("VACUUM payrun.jobs")
        let clock = ContinuousClock()
        let claimedAt = Mutex<[Int64: ContinuousClock.Instant]>([:])
        let failures = Mutex<[String]>([])
        let listenerReady = DispatchSemaphore(value: 0)
        let listenerDone = DispatchSemaphore(value: 0)
        Thread {
            defer { listenerDone.signal() }
            do {
                let own = try PostgresConnection(url: url)
                defer { own.close() }
                try JobQueue.prepareSession(on: own)
                try JobQueue.listen(on: own)
                listenerReady.signal()
                var got = 0, idleWaits = 0
                while got < samples {
                    guard try JobQueue.waitForWakeUp(on: own, timeout: .seconds(5)) else {
                        idleWaits += 1
                        if idleWaits > 3 { throw CommandFailure("no wake-up within 20 s") }
                        continue
                    }
                    let jobs = try JobQueue.claim(on: own, workerId: "idle", limit: 10, leaseSeconds: 60, kinds: ["bench.empty"])
                    let now = clock.now
                    claimedAt.withLock { for job in jobs { $0[job.id] = now } }
                    try JobQueue.complete(jobs, on: own)
                    got += jobs.count
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
                listenerReady.signal()
            }
        }.start()
        listenerReady.wait()
        var committedAt: [Int64: ContinuousClock.Instant] = [:]
        for index in 0..<samples {
            if failures.withLock({ !$0.isEmpty }) { break }
            let id = try JobQueue.enqueue(NewJob(kind: "bench.empty", tenantId: tenantIds[index % tenantIds.count]), on: connection).jobId
            committedAt[id] = clock.now
            usleep(10_000)  // the claimer is idle again before the next job
        }
        listenerDone.wait()
        if let failure = failures.withLock({ $0.first }) { throw CommandFailure("latency: \(failure)") }
        let latencies = claimedAt.withLock { claimed in
            committedAt.compactMap { id, at in claimed[id].map { seconds(at.duration(to: $0)) * 1000 } }
        }.sorted()
        guard !latencies.isEmpty else { throw CommandFailure("latency: no samples") }
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        return Latency(samples: latencies.count, p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99), max: latencies.last ?? 0)
    }
}
