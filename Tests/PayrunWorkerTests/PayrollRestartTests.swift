import Foundation
import PayrollRules
import PayrollStore
@testable import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Testing

@Suite("Payroll runs survive a PostgreSQL restart")
struct PayrollRestartTests {
    @Test("PostgreSQL restarted in the middle of a month-end run: real workers reconnect with backoff, the run completes, one payslip per employee, equal to a clean run")
    func postgresRestartDuringMonthEnd() throws {
        // Reference: a clean run with one in-process worker thread, on the shared test cluster.
        let employer = PayrollCrashTests.employer
        let (cleanDatabase, clean) = try PayrollEndToEnd.database("restart_clean", employer: employer)
        defer { cleanDatabase.drop() }
        let cleanRun = try PayrollCrashTests.scheduledAndPlanned(clean)
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(cleanDatabase.url, threads: 1, lease: 10),
                                          handlers: PayrollEndToEnd.handlers(chunkEmployeesMax: 10), logger: WorkerFixture.logger))
        #expect(try WorkerFixture.wait(timeout: .seconds(60)) { try PayrollEndToEnd.calculatedRuns(clean) == 1 })
        pool.stop()
        let expected = try PayrollCrashTests.outcome(clean, runId: cleanRun)
        #expect(expected.1.count == 30)

        // The restarted run, on a private cluster this test may stop and start.
        let cluster = try PrivateCluster()
        defer { cluster.remove() }
        let c = try PostgresConnection(url: cluster.url)
        try Migrator().migrate(c)
        try employer.seed(on: c)
        let runId = try PayrollCrashTests.scheduledAndPlanned(c)  // 3 chunk jobs of 10 employees
        // Hold the run row so that both job threads of the worker are in the middle of a chunk
        // (loaded and computed, waiting to store) when the server goes away.
        let locker = try PostgresConnection(url: cluster.url)
        try locker.execute("BEGIN")
        try locker.execute("SELECT 1 FROM payrun.payroll_runs WHERE id = $1 FOR UPDATE", [.int(runId)])
        let worker = try PayrunWorkerProcess(url: cluster.url, workerId: "worker-r")
        defer { worker.terminate() }
        let blocked = try WorkerFixture.wait(timeout: .seconds(30)) {
            try WorkerFixture.count("""
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                """, on: c) == 2
        }
        #expect(blocked, "the worker's two job threads should be waiting on the run row")
        c.close()
        try cluster.run("stop")
        locker.close()
        usleep(500_000)
        try cluster.run("start")

        var probe: PostgresConnection?
        let finished = try WorkerFixture.wait(timeout: .seconds(40)) {
            if probe == nil { probe = try? PostgresConnection(url: cluster.url) }
            guard let probe else { return false }
            return try PayrollEndToEnd.calculatedRuns(probe) == 1
        }
        #expect(finished, "the run did not complete after the restart")
        let check = try PostgresConnection(url: cluster.url)
        defer { check.close() }
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: check) == 30)
        #expect(try WorkerFixture.count("SELECT count(DISTINCT employee_id) FROM payrun.payslips", on: check) == 30)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.run_chunks WHERE finished_at IS NOT NULL", on: check) == 3)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state <> 'succeeded'", on: check) == 0)
        // The jobs cut off by the restart were retried.
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.chunk' AND attempts >= 2", on: check) >= 2)
        let restarted = try PayrollCrashTests.outcome(check, runId: runId)
        #expect(restarted.0 != nil && restarted.0 == expected.0)
        #expect(restarted.2 == expected.2)
        #expect(restarted.1 == expected.1)
        probe?.close()
    }
}
