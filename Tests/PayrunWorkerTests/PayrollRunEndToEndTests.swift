import Foundation
import JobQueue
import PayrollRules
import PayrollStore
@testable import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Testing

enum PayrollEndToEnd {
    static let tenant: Int64 = 1

    /// A migrated database with the demo employer seeded.
    static func database(_ label: String, employer: DemoEmployer) throws -> (TestDatabase, PostgresConnection) {
        let database = try TestDatabase.create("payroll_" + label)
        let connection = try database.connect()
        try Migrator().migrate(connection)
        try employer.seed(on: connection)
        return (database, connection)
    }

    static func handlers(chunkEmployeesMax: Int) -> [any JobHandler] {
        [RunPlanJobHandler(chunkEmployeesMax: chunkEmployeesMax), RunChunkJobHandler(), RecalcJobHandler()]
    }

    static func calculatedRuns(_ c: PostgresConnection) throws -> Int64 {
        try WorkerFixture.count("SELECT count(*) FROM payrun.payroll_runs WHERE status IN ('calculated', 'calculated_with_errors')", on: c)
    }

    /// `payrun calc`'s JSON for every stored payslip of the tenant, keyed by (run, employee).
    static func storedJSON(_ c: PostgresConnection) throws -> [String: String] {
        try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            var out: [String: String] = [:]
            for run in try PayrollRun.list(tenantId: tenant, on: c) {
                for slip in try StoredPayslip.fetch(tenantId: tenant, runId: run.id, on: c) {
                    let json: String
                    switch slip.result {
                    case .success(let p): json = CalcResponseEncoder.encode(p)
                    case .failure(let e): json = CalcResponseEncoder.encode(e)
                    }
                    out["\(run.id)/\(slip.employeeId)"] = json
                }
            }
            return out
        }
    }

    /// The same, computed directly: load each employee alone and call `PayrollCalculator.calculate`.
    static func expectedJSON(_ c: PostgresConnection) throws -> [String: String] {
        try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            var out: [String: String] = [:]
            for run in try PayrollRun.list(tenantId: tenant, on: c) {
                let all = try ChunkLoader.load(run: run, selection: .range(from: 0, to: Int64.max), on: c)
                for e in all.employees {
                    let one = try ChunkLoader.load(run: run, selection: .one(e.employeeId), on: c).employees[0]
                    switch one.input {
                    case .success(let input):
                        do throws(PayrollError) {
                            out["\(run.id)/\(e.employeeId)"] = CalcResponseEncoder.encode(try PayrollCalculator.calculate(input))
                        } catch { out["\(run.id)/\(e.employeeId)"] = CalcResponseEncoder.encode(error) }
                    case .failure(let error):
                        out["\(run.id)/\(e.employeeId)"] = CalcResponseEncoder.encode(error)
                    }
                }
            }
            return out
        }
    }
}

@Suite("Payroll runs through the WorkerPool")
struct PayrollRunEndToEndTests {
    @Test("month-end through the worker pool: every employee one payslip, identical to PayrollCalculator (payrun calc); a recalculation enqueued with a shift edit replaces one")
    func monthEndThroughWorkerPool() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 2, employeesPerWorkplace: 12)
        let (database, c) = try PayrollEndToEnd.database("e2e", employer: employer)
        defer { database.drop() }
        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        #expect(scheduled.count == 2 && scheduled.allSatisfy(\.created))

        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: PayrollEndToEnd.handlers(chunkEmployeesMax: 5), logger: WorkerFixture.logger))
        defer { pool.stop() }
        #expect(try WorkerFixture.wait(timeout: .seconds(60)) { try PayrollEndToEnd.calculatedRuns(c) == 2 })
        #expect(pool.error == nil)

        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 24)
        #expect(try WorkerFixture.count("SELECT count(DISTINCT (run_id, employee_id)) FROM payrun.payslips", on: c) == 24)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.run_chunks WHERE finished_at IS NULL", on: c) == 0)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state <> 'succeeded'", on: c) == 0)
        let stored = try PayrollEndToEnd.storedJSON(c)
        let expected = try PayrollEndToEnd.expectedJSON(c)
        #expect(stored.count == 24)
        #expect(stored == expected)

        // A backend edits a shift and asks for a recalculation in one commit.
        let employee = employer.employeeId(workplace: 1, index: 1)
        try c.transaction { c in
            try TenantScope.set(PayrollEndToEnd.tenant, on: c)
            try c.execute("""
                UPDATE payrun.shifts SET ends_at = ends_at + interval '90 minutes'
                 WHERE tenant_id = $1 AND id = (SELECT min(id) FROM payrun.shifts WHERE tenant_id = $1 AND employee_id = $2
                                                 AND starts_at >= '2026-10-10T00:00:00+09:00')
                """, [.int(PayrollEndToEnd.tenant), .int(employee)])
            try c.execute("SELECT payrun.enqueue_recalculation($1, $2, '2026-10-01', 'shift edited')",
                          [.int(PayrollEndToEnd.tenant), .int(employee)])
        }
        #expect(try WorkerFixture.wait(timeout: .seconds(30)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'employee.recalc' AND state = 'succeeded'", on: c) == 1
        })
        #expect(try WorkerFixture.count("SELECT max(revision) FROM payrun.payslips WHERE employee_id = \(employee)", on: c) == 2)
        let after = try PayrollEndToEnd.storedJSON(c)
        #expect(after == (try PayrollEndToEnd.expectedJSON(c)))
        #expect(after.filter { stored[$0.key] != $0.value }.count == 1)
    }
}

@Suite("Month-end periodic task")
struct MonthEndTaskTests {
    @Test("two worker pools with the month-end task create each due run once (catching up a missed month) and compute them")
    func periodicMonthEndAcrossTwoPools() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 1, employeesPerWorkplace: 6)
        let (database, c) = try PayrollEndToEnd.database("month_end_task", employer: employer)
        defer { database.drop() }
        // Scheduled on the 3rd of the following month; the workplace exists since mid-September, so
        // on 2026-11-22 September and October are due (September was missed: catch-up), August is not.
        try c.execute("UPDATE payrun.workplaces SET month_end_day = 3, created_at = '2026-09-15T00:00:00+09:00'")
        let today = LocalDate(year: 2026, month: 11, day: 22)!
        let pools = (0..<2).map { n in
            RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 1, workerId: "pool-\(n)", lease: 10),
                                   handlers: PayrollEndToEnd.handlers(chunkEmployeesMax: 4),
                                   periodic: [MonthEndTask.task(intervalSeconds: 1) { _ in today }], logger: WorkerFixture.logger))
        }
        defer { pools.forEach { $0.stop() } }
        #expect(try WorkerFixture.wait(timeout: .seconds(60)) { try PayrollEndToEnd.calculatedRuns(c) == 2 })
        usleep(1_500_000)  // more ticks, possibly on the other pool
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payroll_runs", on: c) == 2)
        // One tick created both months' runs in one transaction, with one plan job for the two.
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.plan'", on: c) == 1)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payroll_runs WHERE period_start IN ('2026-09-01', '2026-10-01')", on: c) == 2)
    }
}
