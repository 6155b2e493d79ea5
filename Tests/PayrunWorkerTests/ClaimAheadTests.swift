import Foundation
import JobQueue
import PayrunWorker
import PostgresClient
import Testing

/// `WorkerConfiguration.claimAhead`: jobs claimed beyond the free job threads wait in the pool's
/// inbox, leased; the heartbeat renews their leases and drops one whose lease was lost.
@Suite("WorkerPool claims ahead")
struct ClaimAheadTests {
    static func pool(_ url: String, claimAhead: Int) -> RunningPool {
        var configuration = WorkerFixture.configuration(url, threads: 1, lease: 2)
        configuration.claimAhead = claimAhead
        return RunningPool(WorkerPool(configuration: configuration, handlers: [EchoHandler()], logger: WorkerFixture.logger))
    }

    static func state(_ id: Int64, on connection: PostgresConnection) throws -> (state: String, attempts: Int64, leaseLeftMs: Int64?) {
        let row = try connection.queryOne("""
            SELECT state, attempts, (extract(epoch FROM leased_until - clock_timestamp()) * 1000)::bigint FROM payrun.jobs WHERE id = $1
            """, [.int(id)])!
        return (try row.string(at: 0), try row.int64(at: 1), try row.decode(Int64?.self, at: 2))
    }

    @Test("one thread, one job claimed ahead: it waits leased behind a 4 s job with a 2 s lease, its lease renewed, and runs once at its first attempt")
    func aheadJobKeepsItsLease() throws {
        let (database, connection) = try WorkerFixture.database("ahead_lease")
        defer { database.drop() }
        let ids = try JobQueue.enqueue([
            NewJob(kind: "test.echo", tenantId: 1, payload: #"{"sleepMs": 4000}"#),
            NewJob(kind: "test.echo", tenantId: 2),
        ], on: connection).map(\.jobId)
        let running = Self.pool(database.url, claimAhead: 1)
        defer { running.stop() }
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'running'", on: connection) == 2
        }, "the busy thread's job and the one claimed ahead")
        usleep(3_000_000)  // longer than the lease
        let waiting = try Self.state(ids[1], on: connection)
        #expect(waiting.state == "running" && waiting.attempts == 1)
        #expect((waiting.leaseLeftMs ?? -1) > 0, "renewed by the heartbeat while it waited: \(waiting)")
        #expect(try WorkerFixture.count("SELECT count(*) FROM public.results", on: connection) == 0)
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'succeeded'", on: connection) == 2
        })
        #expect(try WorkerFixture.count("SELECT count(*) FROM public.results WHERE attempt = 1", on: connection) == 2)
        #expect(running.error == nil)
    }

    @Test("a job claimed ahead whose lease is taken over while it waits is dropped, not run")
    func aheadJobWithLostLeaseIsNotRun() throws {
        let (database, connection) = try WorkerFixture.database("ahead_lost")
        defer { database.drop() }
        let ids = try JobQueue.enqueue([
            NewJob(kind: "test.echo", tenantId: 1, payload: #"{"sleepMs": 3000}"#),
            NewJob(kind: "test.echo", tenantId: 2, payload: #"{"noteStart": true}"#),
        ], on: connection).map(\.jobId)
        let running = Self.pool(database.url, claimAhead: 1)
        defer { running.stop() }
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'running'", on: connection) == 2
        })
        // As if another worker had rescued it: a new lease token, held for a minute.
        try connection.execute("""
            UPDATE payrun.jobs SET lease_token = gen_random_uuid(), leased_by = 'other', leased_until = clock_timestamp() + interval '60 s'
             WHERE id = $1
            """, [.int(ids[1])])
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) {
            try Self.state(ids[0], on: connection).state == "succeeded"
        })
        usleep(1_500_000)
        // Not started at all (its handler would have noted its start, committed on its own), so
        // not merely fenced off at completion.
        #expect(try WorkerFixture.count("SELECT count(*) FROM public.starts WHERE job_id = \(ids[1])", on: connection) == 0)
        #expect(try WorkerFixture.count("SELECT count(*) FROM public.results WHERE job_id = \(ids[1])", on: connection) == 0)
        #expect(try connection.queryOne("SELECT leased_by FROM payrun.jobs WHERE id = $1", [.int(ids[1])])?.string(at: 0) == "other")
        #expect(running.error == nil)
    }

    @Test("claimAhead 0: one busy thread leaves the second job pending")
    func noClaimAhead() throws {
        let (database, connection) = try WorkerFixture.database("ahead_none")
        defer { database.drop() }
        let ids = try JobQueue.enqueue([
            NewJob(kind: "test.echo", tenantId: 1, payload: #"{"sleepMs": 1500}"#),
            NewJob(kind: "test.echo", tenantId: 2),
        ], on: connection).map(\.jobId)
        let running = Self.pool(database.url, claimAhead: 0)
        defer { running.stop() }
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) { try Self.state(ids[0], on: connection).state == "running" })
        usleep(500_000)
        #expect(try Self.state(ids[1], on: connection).state == "pending")
        #expect(try WorkerFixture.wait(timeout: .seconds(10)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'succeeded'", on: connection) == 2
        })
    }

    @Test("claimAhead outside 0...1024 is a configuration problem")
    func validation() {
        var configuration = WorkerConfiguration(databaseURL: "postgresql://x", claimAhead: -1)
        #expect(configuration.problems.contains { $0.contains("claimAhead") })
        configuration.claimAhead = 2
        #expect(!configuration.problems.contains { $0.contains("claimAhead") })
    }
}
