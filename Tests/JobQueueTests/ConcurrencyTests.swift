import Foundation
import JobQueue
import PostgresClient
import Synchronization
import Testing

@Suite("JobQueue concurrency and wake-up")
struct ConcurrencyTests {
    @Test("four claimers on four connections take 1,000 jobs between them, none twice, without waiting on each other")
    func concurrentClaimers() throws {
        let (database, connection) = try QueueFixture.database("concurrent", tenants: 5)
        defer { database.drop() }
        try JobQueue.enqueue((0..<1000).map { QueueFixture.job(tenant: Int64($0 % 5 + 1)) }, on: connection)
        let seen = Mutex<[Int64]>([])
        let errors = Mutex<[String]>([])
        let group = DispatchGroup()
        for worker in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let mine = try database.connect()
                    while true {
                        let jobs = try JobQueue.claim(on: mine, workerId: "w\(worker)", limit: 25, leaseSeconds: 30)
                        if jobs.isEmpty { break }
                        try JobQueue.complete(jobs, on: mine)
                        seen.withLock { $0 += jobs.map(\.id) }
                    }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        #expect(errors.withLock { $0 } == [])
        let ids = seen.withLock { $0 }
        #expect(ids.count == 1000 && Set(ids).count == 1000)
        #expect(try QueueFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'succeeded' AND attempts = 1", on: connection) == 1000)
    }

    @Test("NOTIFY wakes an idle listener at commit (not before), within 200 ms")
    func notifyWakesListener() throws {
        let (database, connection) = try QueueFixture.database("notify")
        defer { database.drop() }
        let listener = try database.connect()
        try JobQueue.listen(on: listener)
        #expect(try !JobQueue.waitForWakeUp(on: listener, timeout: .milliseconds(50)))

        try connection.execute("BEGIN")
        try JobQueue.enqueue(QueueFixture.job(), on: connection)
        #expect(try !JobQueue.waitForWakeUp(on: listener, timeout: .milliseconds(100)))  // not yet committed
        let woke = Mutex<ContinuousClock.Instant?>(nil)
        let clock = ContinuousClock()
        let done = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        let url = database.url
        Thread {
            defer { done.signal() }
            do {
                let own = try PostgresConnection(url: url)
                try JobQueue.listen(on: own)
                committed.signal()
                if try JobQueue.waitForWakeUp(on: own, timeout: .seconds(5)) {
                    woke.withLock { $0 = clock.now }
                    _ = try JobQueue.claim(on: own, workerId: "idle", limit: 1, leaseSeconds: 30)
                }
            } catch {}
        }.start()
        committed.wait()
        let commitAt = clock.now
        try connection.execute("COMMIT")
        done.wait()
        let wokeAt = try #require(woke.withLock { $0 })
        #expect(commitAt.duration(to: wokeAt) < .milliseconds(200))
        #expect(try QueueFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'running'", on: connection) == 1)
        #expect(try JobQueue.waitForWakeUp(on: listener, timeout: .milliseconds(500)))  // the first listener got it too
    }
}
