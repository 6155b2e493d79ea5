import Foundation
import JobQueue
import PayrunWorker
import PostgresClient
import Testing

@Suite("WorkerPool")
struct WorkerPoolTests {
    @Test("two job threads run 200 jobs of three tenants exactly once each")
    func runsEveryJobOnce() throws {
        let (database, connection) = try WorkerFixture.database("e2e")
        defer { database.drop() }
        let running = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2),
                                             handlers: [EchoHandler()], logger: WorkerFixture.logger))
        try JobQueue.enqueue((0..<200).map { NewJob(kind: "test.echo", tenantId: Int64($0 % 3 + 1), payload: "{\"n\": \($0)}") },
                             on: connection)
        let done = try WorkerFixture.wait(timeout: .seconds(20)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'succeeded'", on: connection) == 200
        }
        #expect(running.stop())
        #expect(running.error == nil)
        #expect(done)
        #expect(try WorkerFixture.count("SELECT count(*) FROM public.results", on: connection) == 200)
        #expect(try WorkerFixture.count("SELECT count(DISTINCT job_id) FROM public.results", on: connection) == 200)
        #expect(try WorkerFixture.count("SELECT max(attempts) FROM payrun.jobs", on: connection) == 1)
        let text = running.pool.metrics.render()
        #expect(text.contains(#"payrun_jobs_completed_total{kind="test.echo"} 200"#))
        #expect(text.contains("payrun_employees_computed_total 200"))
    }

    @Test("a throwing handler is retried; a permanent failure or a handler that forgets to complete fails the job")
    func failures() throws {
        let (database, connection) = try WorkerFixture.database("failures")
        defer { database.drop() }
        let running = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url),
                                             handlers: [EchoHandler()], logger: WorkerFixture.logger))
        defer { running.stop() }
        let ids = try JobQueue.enqueue([
            NewJob(kind: "test.echo", tenantId: 1, payload: #"{"failAttempts": 2}"#, maxAttempts: 3),
            NewJob(kind: "test.echo", tenantId: 1, payload: #"{"permanent": true}"#),
            NewJob(kind: "test.echo", tenantId: 1, payload: #"{"forget": true}"#),
            NewJob(kind: "test.echo", tenantId: 1, payload: #"{"failAttempts": 9}"#, maxAttempts: 2),
        ], on: connection).map(\.jobId)
        let settled = try WorkerFixture.wait(timeout: .seconds(15)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state IN ('succeeded', 'failed')", on: connection) == 4
        }
        #expect(settled)
        let records = try ids.map { try JobQueue.show(id: $0, on: connection) }
        #expect(records[0].state == "succeeded" && records[0].attempts == 3 && records[0].errorCount == 2)
        #expect(records[1].state == "failed" && records[1].attempts == 1 && records[1].lastError == "planned permanent failure")
        #expect(records[2].state == "failed" && records[2].lastError?.contains("without completing") == true)
        #expect(records[3].state == "failed" && records[3].attempts == 2 && records[3].errorCount == 2)
    }

    @Test("an idle worker is woken by NOTIFY: the job starts within 200 ms of the commit, with polling every 30 s")
    func notifyWakesIdleWorker() throws {
        let (database, connection) = try WorkerFixture.database("notify")
        defer { database.drop() }
        let running = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, poll: 30),
                                             handlers: [EchoHandler()], logger: WorkerFixture.logger))
        defer { running.stop() }
        // Let it start and go idle: a first job proves the claimer is listening.
        try JobQueue.enqueue(NewJob(kind: "test.echo", tenantId: 1), on: connection)
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) {
            try WorkerFixture.count("SELECT count(*) FROM public.results", on: connection) == 1
        })
        usleep(300_000)
        var latenciesMicroseconds: [Int64] = []
        for _ in 0..<3 {
            let id = try connection.transaction { connection -> Int64 in
                try JobQueue.enqueue(NewJob(kind: "test.echo", tenantId: 2, payload: #"{"noteStart": true}"#), on: connection).jobId
            }
            let committedAt = try connection.queryOne("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")!.int64(at: 0)
            #expect(try WorkerFixture.wait(timeout: .seconds(5)) {
                try connection.queryOne("SELECT 1 FROM public.starts WHERE job_id = $1", [.int(id)]) != nil
            })
            let startedAt = try connection.queryOne(
                "SELECT (extract(epoch FROM at) * 1000000)::bigint FROM public.starts WHERE job_id = $1", [.int(id)])!.int64(at: 0)
            latenciesMicroseconds.append(startedAt - committedAt)
            usleep(200_000)
        }
        #expect(latenciesMicroseconds.allSatisfy { $0 < 200_000 }, "latencies µs: \(latenciesMicroseconds)")
    }

    @Test("without a notification, polling picks the job up")
    func pollingFallback() throws {
        let (database, connection) = try WorkerFixture.database("poll")
        defer { database.drop() }
        let running = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, poll: 1),
                                             handlers: [EchoHandler()], logger: WorkerFixture.logger))
        defer { running.stop() }
        usleep(300_000)
        try connection.execute("INSERT INTO payrun.jobs (kind, tenant_id) VALUES ('test.echo', 1)")  // no NOTIFY
        #expect(try WorkerFixture.wait(timeout: .seconds(5)) {
            try WorkerFixture.count("SELECT count(*) FROM public.results", on: connection) == 1
        })
    }

    @Test("graceful stop: a job that honours shouldStop finishes; one that ignores it is released after the grace period")
    func gracefulStop() throws {
        let (database, connection) = try WorkerFixture.database("stop")
        defer { database.drop() }
        // A grace period of 3 s: the polite job's completion (one transaction) must fit in it even
        // on a loaded 2-core CI machine, where 1 s once did not; the stubborn job sleeps well past it.
        let running = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, grace: 3),
                                             handlers: [EchoHandler()], logger: WorkerFixture.logger))
        let polite = try JobQueue.enqueue(NewJob(kind: "test.echo", tenantId: 1, payload: #"{"untilStop": true, "noteStart": true}"#),
                                          on: connection).jobId
        let stubborn = try JobQueue.enqueue(NewJob(kind: "system.sleep", tenantId: 1, payload: #"{"ms": 7000}"#), on: connection).jobId
        // Both claimed, and the polite job's handler started: a job claimed ahead but not yet taken
        // by a thread when stop() comes is released unstarted (on a loaded machine that happened,
        // and the polite job was then found pending, not succeeded).
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'running'", on: connection) == 2
                && WorkerFixture.count("SELECT count(*) FROM public.starts WHERE job_id = \(polite)", on: connection) == 1
        })
        let clock = ContinuousClock()
        let stopAt = clock.now
        #expect(running.stop())
        #expect(stopAt.duration(to: clock.now) < .seconds(5))
        #expect(try JobQueue.show(id: polite, on: connection).state == "succeeded")
        let released = try JobQueue.show(id: stubborn, on: connection)
        #expect(released.state == "pending" && released.attempts == 0)
        // The abandoned thread's late completion is fenced off: no effect row ever appears.
        usleep(5_000_000)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.diagnostic_job_effects", on: connection) == 0)
        #expect(try JobQueue.show(id: stubborn, on: connection).state == "pending")
    }

    @Test("GET /metrics over loopback serves the Prometheus text; other paths are 404")
    func metricsEndpoint() throws {
        let (database, connection) = try WorkerFixture.database("metrics")
        defer { database.drop() }
        let running = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, metricsPort: 0),
                                             handlers: [EchoHandler()], logger: WorkerFixture.logger))
        defer { running.stop() }
        try JobQueue.enqueue([NewJob(kind: "test.echo", tenantId: 1), NewJob(kind: "test.echo", tenantId: 2)], on: connection)
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) {
            try WorkerFixture.count("SELECT count(*) FROM public.results", on: connection) == 2
        })
        let port = try #require(running.pool.metricsPort)
        // The maintenance thread refreshes the depth gauge every 5 s; a job's counters go up after
        // its transaction commits (its results row can be seen a moment before).
        var (status, body) = try HTTP.get(port: port, path: "/metrics")
        _ = try WorkerFixture.wait(timeout: .seconds(8)) {
            (status, body) = try HTTP.get(port: port, path: "/metrics")
            return body.contains(#"payrun_queue_depth{state="due"} 0"#) && body.contains(#"payrun_jobs_completed_total{kind="test.echo"} 2"#)
        }
        #expect(status == 200)
        #expect(body.contains(#"payrun_jobs_claimed_total{kind="test.echo"} 2"#))
        #expect(body.contains(#"payrun_jobs_completed_total{kind="test.echo"} 2"#))
        #expect(body.contains("payrun_job_duration_seconds_bucket"))
        #expect(body.contains(#"payrun_queue_depth{state="due"} 0"#))
        #expect(try HTTP.get(port: port, path: "/nothing").status == 404)
    }

    @Test("periodic tasks run on one leader only, at their interval")
    func periodicLeader() throws {
        let (database, connection) = try WorkerFixture.database("periodic")
        defer { database.drop() }
        try connection.execute("CREATE TABLE public.ticks (worker text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())")
        func pool(_ id: String) -> RunningPool {
            let task = PeriodicTask(name: "tick", intervalSeconds: 1) { connection in
                try connection.execute("INSERT INTO public.ticks (worker) VALUES ($1)", [.text(id)])
            }
            return RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 1, workerId: id),
                                          handlers: [], periodic: [task], logger: WorkerFixture.logger))
        }
        let first = pool("one"), second = pool("two")
        usleep(3_300_000)
        let workers = try connection.query("SELECT DISTINCT worker FROM public.ticks").map { try $0.string(at: 0) }
        let ticks = try WorkerFixture.count("SELECT count(*) FROM public.ticks", on: connection)
        #expect(workers.count == 1)
        #expect(ticks >= 2 && ticks <= 5)
        // The leader goes away: the other one takes over.
        let leaderIsFirst = workers.first == "one"
        (leaderIsFirst ? first : second).stop()
        #expect(try WorkerFixture.wait(timeout: .seconds(5)) {
            try WorkerFixture.count("SELECT count(DISTINCT worker) FROM public.ticks", on: connection) == 2
        })
        (leaderIsFirst ? second : first).stop()
    }
}

/// A minimal HTTP/1.0 GET over a loopback TCP socket.
enum HTTP {
    static func get(port: Int, path: String) throws -> (status: Int, body: String) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw HTTPError(message: "connect failed: errno \(errno)") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { throw HTTPError(message: "no header end in: \(text)") }
        let statusLine = text[..<(text.firstIndex(of: "\r") ?? text.endIndex)]
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, String(text[headEnd.upperBound...]))
    }

    struct HTTPError: Error { let message: String }
}
