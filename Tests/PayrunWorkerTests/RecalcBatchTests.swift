import Foundation
import JobQueue
import PayrollRules
import PayrollStore
@testable import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Testing

/// The batched `employee.recalc` path: many jobs of one tenant in one transaction, each fenced by
/// its own lease and keeping its own outcome.
@Suite("Recalculation batches")
struct RecalcBatchTests {
    /// Month-end of every workplace of `employer` computed through a worker pool; returns run ids by workplace number.
    static func monthEnd(_ database: TestDatabase, _ c: PostgresConnection, employer: DemoEmployer) throws -> [Int: Int64] {
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: PayrollEndToEnd.handlers(chunkEmployeesMax: 100), logger: WorkerFixture.logger))
        let done = try WorkerFixture.wait(timeout: .seconds(60)) {
            try PayrollEndToEnd.calculatedRuns(c) == Int64(employer.workplaces)
        }
        pool.stop()
        try #require(done, "month-end did not finish")
        var runs: [Int: Int64] = [:]
        for w in 1...employer.workplaces {
            runs[w] = try c.queryOne("SELECT id FROM payrun.payroll_runs WHERE workplace_id = $1", [.int(employer.workplaceId(w))])?.int64(at: 0)
        }
        return runs
    }

    static func revision(_ c: PostgresConnection, _ employee: Int64) throws -> Int64 {
        try WorkerFixture.count("SELECT max(revision) FROM payrun.payslips WHERE employee_id = \(employee)", on: c)
    }

    /// The run's stored totals equal the sums over its payslips.
    static func totalsMatchPayslips(_ c: PostgresConnection, runId: Int64) throws -> Bool {
        let row = try #require(try c.queryOne("""
            SELECT r.employees_done = s.done AND r.employees_failed = s.failed AND r.gross_won = s.gross AND r.net_won = s.net
                   AND r.total_deductions_won = s.deductions AND r.warnings_count = s.warnings
              FROM payrun.payroll_runs r,
                   (SELECT count(*) FILTER (WHERE error IS NULL) AS done, count(*) FILTER (WHERE error IS NOT NULL) AS failed,
                           coalesce(sum(gross_won), 0) AS gross, coalesce(sum(net_won), 0) AS net,
                           coalesce(sum(total_deductions_won), 0) AS deductions, sum(jsonb_array_length(warnings)) AS warnings
                      FROM payrun.payslips WHERE run_id = $1) s
             WHERE r.id = $1
            """, [.int(runId)]))
        return try row.bool(at: 0)
    }

    @Test("one batch with a lost lease, an unknown employee, an approved run, bad data and normal employees gives each job exactly its outcome")
    func mixedBatch() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 2, employeesPerWorkplace: 5)
        let (database, c) = try PayrollEndToEnd.database("recalc_batch_mixed", employer: employer)
        defer { database.drop() }
        let runs = try Self.monthEnd(database, c, employer: employer)
        let (open, approved) = (try #require(runs[1]), try #require(runs[2]))
        try c.transaction { c in
            try TenantScope.set(employer.tenantId, on: c)
            _ = try RunApproval.approve(tenantId: employer.tenantId, runId: approved, approvedBy: "test", on: c)
        }
        let normal = [employer.employeeId(workplace: 1, index: 1), employer.employeeId(workplace: 1, index: 4)]
        let bad = employer.employeeId(workplace: 1, index: 2)
        let lost = employer.employeeId(workplace: 1, index: 3)
        let locked = employer.employeeId(workplace: 2, index: 1)
        let unknown: Int64 = 999_999
        // Bad data: a contract deleted behind the schema's back → "missing contract" for that employee.
        try c.execute("DELETE FROM payrun.contracts WHERE employee_id = $1", [.int(bad)])
        // Requests as the queue holds them (the approved run's one was enqueued before approval).
        func job(_ employee: Int64) -> NewJob {
            NewJob(kind: PayrollJobKind.recalc, tenantId: employer.tenantId,
                   payload: #"{"employeeId": \#(employee), "periodStart": "2026-10-01", "reason": "test"}"#,
                   dedupKey: "employee.recalc:1:\(employee):2026-10-01", maxAttempts: 3)
        }
        let employees = normal + [bad, lost, locked, unknown]
        var jobIds: [Int64: Int64] = [:]
        for employee in employees { jobIds[employee] = try JobQueue.enqueue(job(employee), on: c).jobId }
        let claimed = try JobQueue.claim(on: c, workerId: "test-worker", limit: 20, leaseSeconds: 30, kinds: [PayrollJobKind.recalc])
        #expect(claimed.count == employees.count)
        // Another worker took one job over after our lease expired: our token no longer fences it.
        try c.execute("UPDATE payrun.jobs SET lease_token = gen_random_uuid(), leased_by = 'other' WHERE id = $1",
                      [.int(try #require(jobIds[lost]))])
        let beforeCorrections = try WorkerFixture.count("SELECT count(*) FROM payrun.pending_corrections", on: c)

        let pool = WorkerPool(configuration: WorkerFixture.configuration(database.url), handlers: [RecalcJobHandler(batchSize: 16)],
                              logger: WorkerFixture.logger)
        let jobThread = try database.connect()
        defer { jobThread.close() }
        BatchJobExecution(pool: pool, connection: jobThread, jobs: claimed.map { ($0, JobFlags(shutdown: false)) },
                          handler: RecalcJobHandler(batchSize: 16), role: "test").run()

        func state(_ employee: Int64) throws -> JobRecord { try JobQueue.show(id: try #require(jobIds[employee]), on: c) }
        for employee in normal {
            #expect(try state(employee).state == "succeeded")
            #expect(try Self.revision(c, employee) == 2)
        }
        #expect(try state(bad).state == "succeeded")
        #expect(try Self.revision(c, bad) == 2)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips WHERE employee_id = \(bad) AND error IS NOT NULL", on: c) == 1)
        let lostJob = try state(lost)
        #expect(lostJob.state == "running" && lostJob.leasedBy == "other")
        #expect(try Self.revision(c, lost) == 1, "a job whose lease was lost must not have its payslip written")
        let unknownJob = try state(unknown)
        #expect(unknownJob.state == "failed" && unknownJob.attempts == 1)
        #expect(unknownJob.lastError?.contains("does not exist") == true)
        #expect(try state(locked).state == "succeeded")
        #expect(try Self.revision(c, locked) == 1)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.pending_corrections", on: c) == beforeCorrections + 1)
        #expect(try WorkerFixture.count("""
            SELECT count(*) FROM payrun.pending_corrections WHERE run_id = \(approved) AND employee_id = \(locked) AND reason = 'test'
            """, on: c) == 1)
        // One transaction for the whole batch; the open run's totals moved by the summed differences.
        #expect(try WorkerFixture.count("SELECT count(DISTINCT computed_at) FROM payrun.payslips WHERE revision = 2", on: c) == 1)
        let run = try #require(try c.queryOne("SELECT status, employees_failed FROM payrun.payroll_runs WHERE id = $1", [.int(open)]))
        #expect(try run.string(at: 0) == "calculated_with_errors" && run.int32(at: 1) == 1)
        #expect(try Self.totalsMatchPayslips(c, runId: open))
        // The recomputed payslips equal what `payrun calc` computes for the same inputs.
        let stored = try PayrollEndToEnd.storedJSON(c), expected = try PayrollEndToEnd.expectedJSON(c)
        for employee in normal + [bad] { #expect(stored["\(open)/\(employee)"] == expected["\(open)/\(employee)"]) }
    }

    @Test("the worker pool runs recalculations in batches end to end; duplicate requests give one job each")
    func batchesThroughThePool() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 2, employeesPerWorkplace: 20)
        let (database, c) = try PayrollEndToEnd.database("recalc_batch_pool", employer: employer)
        defer { database.drop() }
        let runs = try Self.monthEnd(database, c, employer: employer)
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: PayrollEndToEnd.handlers(chunkEmployeesMax: 100), logger: WorkerFixture.logger))
        defer { pool.stop() }
        // A backend edits every employee's first shift and asks twice for each recalculation, in one commit.
        let employees = (1...2).flatMap { w in (1...20).map { employer.employeeId(workplace: w, index: $0) } }
        try c.transaction { c in
            try TenantScope.set(employer.tenantId, on: c)
            try c.execute("""
                UPDATE payrun.shifts s SET ends_at = ends_at + interval '30 minutes'
                 WHERE s.id IN (SELECT min(id) FROM payrun.shifts WHERE starts_at >= '2026-10-12T00:00:00+09:00' GROUP BY employee_id)
                """)
            for employee in employees + employees {
                try c.execute("SELECT payrun.enqueue_recalculation($1, $2, '2026-10-01', 'shift edited')",
                              [.int(employer.tenantId), .int(employee)])
            }
        }
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'employee.recalc'", on: c) == 40)
        let finished = try WorkerFixture.wait(timeout: .seconds(30)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'employee.recalc' AND state = 'succeeded'", on: c) == 40
        }
        #expect(finished)
        #expect(pool.error == nil)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips WHERE revision = 2", on: c) == 40)
        // Batches: jobs committed together share a transaction timestamp.
        let transactions = try WorkerFixture.count("SELECT count(DISTINCT computed_at) FROM payrun.payslips WHERE revision = 2", on: c)
        #expect(transactions >= 1 && transactions <= 10, "40 recalculations took \(transactions) transactions")
        #expect(try PayrollEndToEnd.storedJSON(c) == (try PayrollEndToEnd.expectedJSON(c)))
        for runId in runs.values { #expect(try Self.totalsMatchPayslips(c, runId: runId)) }
    }
}
