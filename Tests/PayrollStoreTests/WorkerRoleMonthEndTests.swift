import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// Workers in production log in as plain members of `payrun_worker`: no BYPASSRLS, so row-level
/// security applies to them, and PostgreSQL refuses COPY FROM into a table under row-level
/// security. These tests run the month-end as that role.
@Suite("Month-end as a payrun_worker member")
struct WorkerRoleMonthEndTests {
    typealias F = PayrollDataFixture

    @Test("as payrun_worker a chunk plans, loads, computes and stores every payslip (staging path), equal to the calculator's")
    func workerRoleComputesAChunk() throws {
        let c = try F.migrated("worker_role_chunk")
        try F.seed(c, runStatus: "planned")
        let outcome = try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c) { c in
            _ = try RunPlanner.plan(tenantId: F.tenant, runId: F.run, on: c)
            return try ChunkProcessor.process(tenantId: F.tenant, runId: F.run, version: 1, chunkNo: 0,
                                              from: F.hourly, to: F.monthly, stagingKey: .random(), on: c)
        }
        #expect(outcome.employees == 2 && outcome.failures.isEmpty && outcome.finalizedRun)
        let stored = try StoredPayslip.fetch(tenantId: F.tenant, runId: F.run, on: c)
        #expect(stored.map(\.employeeId) == [F.hourly, F.monthly])
        for s in stored {
            #expect(try s.result.get() == (try PayrollCalculator.calculate(F.expectedInput(s.employeeId))))
        }
        #expect(try c.queryOne("SELECT count(*) FROM payrun.payslip_staging")?.int64(at: 0) == 0)
        #expect(try c.queryOne("SELECT status FROM payrun.payroll_runs WHERE id = $1", [.int(F.run)])?.string(at: 0) == "calculated")
    }

    @Test("the writer takes the staging path for a role under row-level security and the direct COPY for the owner; both store the same rows")
    func writerPathFollowsRowSecurity() throws {
        let c = try F.migrated("worker_role_writer")
        try F.seed(c)
        func write(asWorker: Bool) throws -> PayslipWriter.Path {
            let body = { (c: PostgresConnection) throws -> PayslipWriter.Path in
                let run = try F.run(c)
                let chunk = try ChunkLoader.load(run: run, selection: .range(from: F.hourly, to: F.monthly), on: c)
                let payslips = ChunkProcessor.compute(chunk, calculate: ChunkProcessor.serial)
                return try PayslipWriter.writeReportingPath(payslips, run: run, stagingKey: .random(), on: c).path
            }
            if asWorker { return try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c, body) }
            return try c.transaction { c in try TenantScope.set(F.tenant, on: c); return try body(c) }
        }
        #expect(try write(asWorker: true) == .replacement)
        let byWorker = try MonthEndFastPathTests.storedRows(c)
        try c.execute("DELETE FROM payrun.payslips WHERE run_id = $1", [.int(F.run)])
        #expect(try write(asWorker: false) == .direct)
        #expect(try MonthEndFastPathTests.storedRows(c) == byWorker)
        #expect(byWorker.count == 2)
    }
}
