import Foundation
import PayrollRules
import PayrollStore
@testable import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Testing

@Suite("Payroll runs survive a killed worker")
struct PayrollCrashTests {
    static let employer = DemoEmployer(tenantId: 1, workplaces: 1, employeesPerWorkplace: 30)

    /// Run id after scheduling and planning (chunks of 10) in-test.
    static func scheduledAndPlanned(_ c: PostgresConnection) throws -> Int64 {
        let runId = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)[0].runId
        _ = try c.transaction { c in try RunPlanner.plan(tenantId: employer.tenantId, runId: runId, chunkEmployeesMax: 10, on: c) }
        // Planned here, so the plan job has nothing left to do.
        try c.execute("UPDATE payrun.jobs SET state = 'succeeded', finished_at = now() WHERE kind = 'run.plan'")
        return runId
    }

    /// (run digest, payslip JSON by employee, payslip input digests by employee).
    static func outcome(_ c: PostgresConnection, runId: Int64) throws -> (String?, [Int64: String], [Int64: String]) {
        try c.transaction { c in
            try TenantScope.set(employer.tenantId, on: c)
            let run = try PayrollRun.fetch(tenantId: employer.tenantId, runId: runId, on: c)
            var json: [Int64: String] = [:], digests: [Int64: String] = [:]
            for slip in try StoredPayslip.fetch(tenantId: employer.tenantId, runId: runId, on: c) {
                switch slip.result {
                case .success(let p): json[slip.employeeId] = CalcResponseEncoder.encode(p)
                case .failure(let e): json[slip.employeeId] = CalcResponseEncoder.encode(e)
                }
                digests[slip.employeeId] = slip.inputDigestHex ?? "-"
            }
            return (run?.inputDigestHex, json, digests)
        }
    }

    @Test("a worker SIGKILLed in the middle of its chunks: after rescue the run completes, one payslip per employee, all equal to a clean single-worker run")
    func sigkillMidChunk() throws {
        // Reference: a clean run with one in-process worker thread, in its own database.
        let (cleanDatabase, clean) = try PayrollEndToEnd.database("clean", employer: Self.employer)
        defer { cleanDatabase.drop() }
        let cleanRun = try Self.scheduledAndPlanned(clean)
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(cleanDatabase.url, threads: 1, lease: 10),
                                          handlers: PayrollEndToEnd.handlers(chunkEmployeesMax: 10), logger: WorkerFixture.logger))
        #expect(try WorkerFixture.wait(timeout: .seconds(60)) { try PayrollEndToEnd.calculatedRuns(clean) == 1 })
        pool.stop()
        let expected = try Self.outcome(clean, runId: cleanRun)
        #expect(expected.1.count == 30)

        // Crash run: hold the run row locked so worker A's chunk jobs stop mid-way (loaded and
        // computed, waiting to store), kill A with SIGKILL, release, let worker B finish.
        let (database, c) = try PayrollEndToEnd.database("crash", employer: Self.employer)
        defer { database.drop() }
        let runId = try Self.scheduledAndPlanned(c)
        let locker = try database.connect()
        try locker.execute("BEGIN")
        try locker.execute("SELECT 1 FROM payrun.payroll_runs WHERE id = $1 FOR UPDATE", [.int(runId)])
        let a = try PayrunWorkerProcess(url: database.url, workerId: "worker-a")
        let blocked = try WorkerFixture.wait(timeout: .seconds(30)) {
            try WorkerFixture.count("""
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                """, on: c) == 2
        }
        #expect(blocked, "worker A's two job threads should be waiting on the run row")
        // Its two job threads' jobs and the one it claimed ahead (`claimAhead` 1): all three chunks.
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.chunk' AND state = 'running' AND leased_by = 'worker-a'", on: c) == 3)
        a.kill9()
        try locker.execute("COMMIT")
        locker.close()
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 0)

        let b = try PayrunWorkerProcess(url: database.url, workerId: "worker-b")
        defer { b.terminate() }
        #expect(try WorkerFixture.wait(timeout: .seconds(60)) { try PayrollEndToEnd.calculatedRuns(c) == 1 })
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 30)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips WHERE revision <> 1", on: c) == 0)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.run_chunks WHERE finished_at IS NOT NULL", on: c) == 3)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.chunk' AND attempts >= 2", on: c) == 3)
        let crashed = try Self.outcome(c, runId: runId)
        #expect(crashed.0 != nil && crashed.0 == expected.0)
        #expect(crashed.2 == expected.2)
        #expect(crashed.1 == expected.1)
    }
}
