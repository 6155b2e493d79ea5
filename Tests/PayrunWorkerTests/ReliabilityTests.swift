import Foundation
import JobQueue
import PayrunWorker
import PostgresClient
import Testing

/// Real processes and a real server restart.
@Suite("Reliability")
struct ReliabilityTests {
    @Test("a worker stopped with SIGSTOP past its lease cannot commit anything after another worker took the job over")
    func sigstoppedWorkerIsFenced() throws {
        let binary = try #require(PayrunProcess.locate(), "payrun binary not found; run `swift build`")
        let (database, connection) = try WorkerFixture.database("sigstop")
        defer { database.drop() }
        let first = try PayrunProcess.Worker(binary: binary, databaseURL: database.url, workerId: "first")
        let id = try JobQueue.enqueue(NewJob(kind: "system.sleep", tenantId: 1, payload: #"{"ms": 2500}"#), on: connection).jobId
        let claimed = try WorkerFixture.wait(timeout: .seconds(10)) {
            try JobQueue.show(id: id, on: connection).leasedBy == "first"
        }
        try #require(claimed, "worker 1 did not claim the job; log:\n\(first.log)")
        kill(first.pid, SIGSTOP)
        // Its lease (2 s) runs out while it is stopped; a second worker rescues and takes the job.
        let second = try PayrunProcess.Worker(binary: binary, databaseURL: database.url, workerId: "second")
        let takenOver = try WorkerFixture.wait(timeout: .seconds(20)) {
            let job = try JobQueue.show(id: id, on: connection)
            return job.state == "succeeded" && job.leasedBy == "second"
        }
        #expect(takenOver, "log of worker 2:\n\(second.log)")
        // The first worker resumes: its sleep is over, it writes its effect and completes — fenced.
        kill(first.pid, SIGCONT)
        let refused = WorkerFixture.wait(timeout: .seconds(10)) { first.log.contains("lease lost") }
        #expect(refused, "log of worker 1:\n\(first.log)")
        usleep(500_000)
        let effects = try connection.query("SELECT worker_id, attempt FROM payrun.diagnostic_job_effects WHERE job_id = $1", [.int(id)])
            .map { "\(try $0.string(at: 0))#\(try $0.int(at: 1))" }
        #expect(effects == ["second#2"])
        let job = try JobQueue.show(id: id, on: connection)
        #expect(job.state == "succeeded" && job.attempts == 2 && job.errorCount == 1)
        #expect(job.lastError?.contains("lease expired") == true)
        #expect(first.terminate() == 0, "log of worker 1:\n\(first.log)")
        #expect(second.terminate() == 0, "log of worker 2:\n\(second.log)")
    }

    @Test("PostgreSQL restarted during a run: workers reconnect with backoff and every job completes exactly once")
    func postgresRestart() throws {
        let cluster = try PrivateCluster()
        defer { cluster.remove() }
        let setup = try PostgresConnection(url: cluster.url)
        try WorkerFixture.prepare(setup)
        setup.close()
        try JobQueue.enqueue((0..<150).map { NewJob(kind: "test.echo", tenantId: Int64($0 % 3 + 1), payload: #"{"sleepMs": 15}"#) },
                             on: try PostgresConnection(url: cluster.url))
        var configuration = WorkerFixture.configuration(cluster.url, threads: 2, lease: 5)
        configuration.claimBatchMax = 2
        let running = RunningPool(WorkerPool(configuration: configuration, handlers: [EchoHandler()], logger: WorkerFixture.logger))
        defer { running.stop() }
        let progressed = try WorkerFixture.wait(timeout: .seconds(10)) {
            let probe = try PostgresConnection(url: cluster.url)
            defer { probe.close() }
            return try WorkerFixture.count("SELECT count(*) FROM public.results", on: probe) >= 20
        }
        #expect(progressed)
        try cluster.run("stop")
        usleep(1_000_000)
        try cluster.run("start")
        var connection: PostgresConnection?
        let finished = try WorkerFixture.wait(timeout: .seconds(30)) {
            if connection == nil { connection = try? PostgresConnection(url: cluster.url) }
            guard let connection else { return false }
            return try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'succeeded'", on: connection) == 150
        }
        #expect(finished)
        #expect(running.stop())
        let check = try PostgresConnection(url: cluster.url)
        #expect(try WorkerFixture.count("SELECT count(*) FROM public.results", on: check) == 150)
        #expect(try WorkerFixture.count("SELECT count(DISTINCT job_id) FROM public.results", on: check) == 150)
        check.close()
    }
}
