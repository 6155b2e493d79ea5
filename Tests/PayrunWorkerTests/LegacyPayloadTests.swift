import Foundation
import PayrollStore
@testable import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Testing

/// Jobs queued before packing (`run.plan {"runId"}`, `run.chunk {"runId","version","chunk","from","to"}`)
/// are still served after an upgrade.
@Suite("Payroll job payloads from before packing")
struct LegacyPayloadTests {
    @Test("a queued single-run plan job and the single-chunk jobs it enqueues still compute the runs, identical to payrun calc")
    func singleRunPayloadsStillWork() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 2, employeesPerWorkplace: 7)
        let (database, c) = try PayrollEndToEnd.database("legacy_payloads", employer: employer)
        defer { database.drop() }
        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        try #require(scheduled.count == 2)
        // Replace the packed plan job by one old-style plan job per run.
        try c.execute("DELETE FROM payrun.jobs")
        for s in scheduled {
            try c.execute("""
                INSERT INTO payrun.jobs (kind, tenant_id, payload, priority, dedup_key)
                VALUES ('run.plan', $1, jsonb_build_object('runId', $2::bigint), 80, 'run.plan:' || $1 || ':' || $2)
                """, [.int(s.tenantId), .int(s.runId)])
        }
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: PayrollEndToEnd.handlers(chunkEmployeesMax: 3), logger: WorkerFixture.logger))
        defer { pool.stop() }
        #expect(try WorkerFixture.wait(timeout: .seconds(60)) { try PayrollEndToEnd.calculatedRuns(c) == 2 })
        #expect(pool.error == nil)
        // 7 employees in chunks of 3: 3 single-chunk jobs per run, none packed.
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.chunk' AND payload ? 'runId'", on: c) == 6)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.chunk' AND payload ? 'parts'", on: c) == 0)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state <> 'succeeded'", on: c) == 0)
        let stored = try PayrollEndToEnd.storedJSON(c)
        #expect(stored.count == 14)
        #expect(stored == (try PayrollEndToEnd.expectedJSON(c)))
    }
}
