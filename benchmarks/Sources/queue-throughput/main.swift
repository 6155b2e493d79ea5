// Queue throughput and wake-up latency with empty jobs (no handler work), on a real server.
//
//   swift run -c release --package-path benchmarks queue-throughput --database-url URL \
//       [--jobs N] [--threads T] [--batch B] [--tenants K] [--latency-samples S]
//
// URL names a server where the user may CREATE DATABASE (e.g. the URL `ops/pg start` prints); a
// fresh database `payrun_bench_queue_<pid>` is created, migrated, used and dropped.
//
// 1. enqueue: N jobs over K tenants in batches of 1,000 (one statement per batch).
// 2. claim+complete: T threads, each on its own connection, loop `JobQueue.claim(limit: B)` then
//    `JobQueue.complete(batch)` (two statements, two commits per B jobs) until the queue is empty.
//    Reported: jobs/s from the first claim to the last completion. Claim connections run with
//    `JobQueue.prepareSession` (jit = off), as the worker's claimer does.
// 3. wake-up latency: an idle claimer LISTENs; S times, one job is enqueued (committed) and the
//    time from that commit to the claimer holding the job is measured (NOTIFY → wake → claim).
import Dispatch
import Foundation
import JobQueue
import PayrollStore
import PostgresClient
import Synchronization

var databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"]
var jobCount = 200_000
var threads = 2
var batch = 100
var tenants = 10
var latencySamples = 200
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let a = arguments.next() {
    switch a {
    case "--database-url": databaseURL = arguments.next()
    case "--jobs": jobCount = Int(arguments.next() ?? "") ?? jobCount
    case "--threads": threads = Int(arguments.next() ?? "") ?? threads
    case "--batch": batch = Int(arguments.next() ?? "") ?? batch
    case "--tenants": tenants = Int(arguments.next() ?? "") ?? tenants
    case "--latency-samples": latencySamples = Int(arguments.next() ?? "") ?? latencySamples
    default:
        print("usage: queue-throughput --database-url URL [--jobs N] [--threads T] [--batch B] [--tenants K] [--latency-samples S]")
        exit(2)
    }
}
guard let serverURL = databaseURL else {
    print("queue-throughput: pass --database-url (or set DATABASE_URL), e.g. the URL `ops/pg start` prints")
    exit(2)
}


func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

let name = "payrun_bench_queue_\(getpid())"
let admin = try PostgresConnection(url: serverURL)
try admin.execute("CREATE DATABASE \(name)")
defer {
    _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
}
let benchURL = PostgresConnectionString.replacingDatabase(in: serverURL, with: name)
let connection = try PostgresConnection(url: benchURL)
try Migrator().migrate(connection)
try connection.execute("INSERT INTO payrun.tenants (id, name) SELECT n, 'T' || n FROM generate_series(1, $1::int) n", [.int(tenants)])
let synchronousCommit = try connection.queryOne("SHOW synchronous_commit")?.string(at: 0) ?? "?"
let fsync = try connection.queryOne("SHOW fsync")?.string(at: 0) ?? "?"
print("server: \(try connection.queryOne("SHOW server_version")?.string(at: 0) ?? "?"), fsync=\(fsync), synchronous_commit=\(synchronousCommit)")

// 1. Enqueue.
let clock = ContinuousClock()
var enqueueStart = clock.now
var next = 0
while next < jobCount {
    let count = min(1000, jobCount - next)
    try JobQueue.enqueue((0..<count).map { NewJob(kind: "bench.empty", tenantId: Int64((next + $0) % tenants + 1)) }, on: connection)
    next += count
}
let enqueueTime = enqueueStart.duration(to: clock.now)
print(String(format: "enqueue: %d jobs in %.2f s = %.0f jobs/s (batches of 1,000)", jobCount, milliseconds(enqueueTime) / 1000,
             Double(jobCount) / (milliseconds(enqueueTime) / 1000)))
try connection.execute("VACUUM ANALYZE payrun.jobs")

// 2. Claim + complete.
let claimBatch = batch
let done = Mutex<Int>(0)
let failures = Mutex<[String]>([])
let group = DispatchGroup()
let go = DispatchSemaphore(value: 0)
for index in 0..<threads {
    group.enter()
    Thread {
        defer { group.leave() }
        do {
            let own = try PostgresConnection(url: benchURL)
            try JobQueue.prepareSession(on: own)
            go.wait()
            var mine = 0
            while true {
                let jobs = try JobQueue.claim(on: own, workerId: "bench-\(index)", limit: claimBatch, leaseSeconds: 60)
                if jobs.isEmpty { break }
                try JobQueue.complete(jobs, on: own)
                mine += jobs.count
            }
            done.withLock { $0 += mine }
        } catch {
            failures.withLock { $0.append("\(error)") }
        }
    }.start()
}
usleep(200_000)
let runStart = clock.now
for _ in 0..<threads { go.signal() }
group.wait()
let runTime = runStart.duration(to: clock.now)
let completed = done.withLock { $0 }
if let failure = failures.withLock({ $0.first }) { print("error: \(failure)"); exit(1) }
print(String(format: "claim+complete: %d jobs, %d threads, batch %d, %d tenants: %.2f s = %.0f jobs/s", completed, threads, batch,
             tenants, milliseconds(runTime) / 1000, Double(completed) / (milliseconds(runTime) / 1000)))

// 3. Wake-up latency of an idle claimer. First VACUUM the table, as autovacuum (tuned for this
//    table in migration 0009) does in steady state: right after the run above the partial indexes
//    hold an entry per claimed job, which an idle claim would otherwise step over.
try connection.execute("VACUUM payrun.jobs")
let claimedAt = Mutex<[Int64: ContinuousClock.Instant]>([:])
let listenerReady = DispatchSemaphore(value: 0)
let listenerDone = DispatchSemaphore(value: 0)
let samples = latencySamples
Thread {
    defer { listenerDone.signal() }
    do {
        let own = try PostgresConnection(url: benchURL)
        try JobQueue.prepareSession(on: own)
        try JobQueue.listen(on: own)
        listenerReady.signal()
        var got = 0
        while got < samples {
            guard try JobQueue.waitForWakeUp(on: own, timeout: .seconds(5)) else { continue }
            let jobs = try JobQueue.claim(on: own, workerId: "idle", limit: 10, leaseSeconds: 60)
            let now = clock.now
            claimedAt.withLock { for job in jobs { $0[job.id] = now } }
            try JobQueue.complete(jobs, on: own)
            got += jobs.count
        }
    } catch {
        failures.withLock { $0.append("\(error)") }
    }
}.start()
listenerReady.wait()
var committedAt: [Int64: ContinuousClock.Instant] = [:]
for index in 0..<samples {
    let id = try JobQueue.enqueue(NewJob(kind: "bench.empty", tenantId: Int64(index % tenants + 1)), on: connection).jobId
    committedAt[id] = clock.now
    usleep(10_000)  // the claimer is idle again before the next job
}
listenerDone.wait()
if let failure = failures.withLock({ $0.first }) { print("error: \(failure)"); exit(1) }
let latencies = claimedAt.withLock { claimed in
    committedAt.compactMap { id, at in claimed[id].map { milliseconds(at.duration(to: $0)) } }
}.sorted()
func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
print(String(format: "wake-up latency (commit → claimed), %d samples: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
             latencies.count, percentile(0.5), percentile(0.9), percentile(0.99), latencies.last ?? 0))
