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
        #expect(try write(asWorker: true) == .staged)
        let byWorker = try MonthEndFastPathTests.storedRows(c)
        #expect(try MonthEndFastPathTests.revisions(c) == [1, 1])
        // A rerun by the worker replaces them (the staged upsert), the same rows a revision up.
        #expect(try write(asWorker: true) == .replacement)
        #expect(try MonthEndFastPathTests.storedRows(c) == byWorker)
        #expect(try MonthEndFastPathTests.revisions(c) == [2, 2])
        try c.execute("DELETE FROM payrun.payslips WHERE run_id = $1", [.int(F.run)])
        #expect(try write(asWorker: false) == .direct)
        #expect(try MonthEndFastPathTests.storedRows(c) == byWorker)
        #expect(byWorker.count == 2)
    }

    @Test("as payrun_worker a packed month-end stores the owner's payslips and runs, and completes every staged part from the worker's sums")
    func workerRolePackedMonthEnd() throws {
        typealias P = PackedMonthEndTests
        func monthEnd(_ label: String, asWorker: Bool) throws -> (PostgresConnection, summed: Int, expected: Int) {
            let (c, tenant, _, jobs) = try WrittenChunkTotalsTests.plannedJob(label)
            var summed = 0, expected = 0
            for job in jobs {
                let outcome = asWorker
                    ? try StoreFixture.asRole("payrun_worker", tenant: tenant, on: c) { c in
                        try ChunkProcessor.processParts(tenantId: tenant, parts: P.requests(job), stagingKey: .random(), on: c)
                    }
                    : try P.process(c, job)
                summed += outcome.partsSummedInWorker
                // Every part of a job of two or more payslips (a single payslip is one upsert).
                expected += job.reduce(0) { $0 + $1.employees } <= 1 ? 0 : job.filter { $0.employees > 0 }.count
            }
            for run in try c.query("SELECT id FROM payrun.payroll_runs ORDER BY id").map({ try $0.int64(at: 0) }) {
                try ChunkTotalsTests.expectChunksHoldPayslips(c, run: run, tenant: tenant)
            }
            return (c, summed, expected)
        }
        let owner = try monthEnd("worker_role_packed_owner", asWorker: false)
        let worker = try monthEnd("worker_role_packed_worker", asWorker: true)
        #expect(worker.summed > 0 && worker.summed == worker.expected && owner.summed == owner.expected)
        #expect(try P.count(worker.0, "SELECT count(*) FROM payrun.payroll_runs WHERE status NOT LIKE 'calculated%'") == 0)
        let stored = try P.storedRows(worker.0), storedByOwner = try P.storedRows(owner.0)
        #expect(stored.count > 250 && stored == storedByOwner)
        let runs = try P.runRows(worker.0), runsByOwner = try P.runRows(owner.0)
        #expect(runs == runsByOwner)
        #expect(try P.count(worker.0, "SELECT count(*) FROM payrun.payslip_staging") == 0)
    }

    /// Whether this session has its temporary staging table, and the rows in it.
    static func localStaging(_ c: PostgresConnection) throws -> Int64? {
        guard try c.queryOne("SELECT to_regclass('pg_temp.payslip_staging') IS NOT NULL")?.bool(at: 0) == true else { return nil }
        return try c.queryOne("SELECT count(*) FROM pg_temp.payslip_staging")?.int64(at: 0)
    }

    @Test("rows are staged in the session's temporary table, empty after each commit, made again after a rollback dropped it; without TEMP privilege in the shared table")
    func stagingTableOfTheSession() throws {
        let c = try F.migrated("worker_role_staging_table")
        try F.seed(c)
        func writeAsWorker(_ c: PostgresConnection) throws -> PayslipWriter.Path {
            let (run, payslips) = try MonthEndFastPathTests.computed(c)
            return try PayslipWriter.writeReportingPath(payslips, run: run, stagingKey: .random(), on: c).path
        }
        #expect(try Self.localStaging(c) == nil)
        // Created in a transaction that rolls back: gone with it, and made again by the next write.
        try c.execute("BEGIN")
        try c.execute("SET LOCAL ROLE payrun_worker")
        try TenantScope.set(F.tenant, on: c)
        #expect(try writeAsWorker(c) == .staged)
        #expect(try PayslipWriter.stagingTable(on: c) == "pg_temp.payslip_staging")
        try c.execute("ROLLBACK")
        #expect(try Self.localStaging(c) == nil)
        #expect(try MonthEndFastPathTests.storedRows(c).isEmpty)
        #expect(try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c, writeAsWorker) == .staged)
        #expect(try Self.localStaging(c) == 0)
        #expect(try MonthEndFastPathTests.storedRows(c).count == 2)
        #expect(try c.queryOne("SELECT count(*) FROM payrun.payslip_staging")?.int64(at: 0) == 0)
        let stagedLocally = try MonthEndFastPathTests.storedRows(c)

        // A role that may not create temporary tables stages in the shared unlogged table.
        let shared = try F.migrated("worker_role_staging_shared")
        try F.seed(shared)
        let database = try #require(try shared.queryOne("SELECT current_database()")?.string(at: 0))
        try shared.execute("REVOKE TEMPORARY ON DATABASE \"\(database)\" FROM PUBLIC")
        let sharedPath = try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: shared) { c in
            (table: try PayslipWriter.stagingTable(on: c), path: try writeAsWorker(c))
        }
        #expect(sharedPath.table == "payrun.payslip_staging" && sharedPath.path == .staged)
        #expect(try Self.localStaging(shared) == nil)
        #expect(try shared.queryOne("SELECT count(*) FROM payrun.payslip_staging")?.int64(at: 0) == 0)
        #expect(try MonthEndFastPathTests.storedRows(shared) == stagedLocally)
        // There a job's move finds its rows by their key (0021), not by a scan of every other job's.
        try shared.execute("""
            INSERT INTO payrun.payslip_staging (lease_token, tenant_id, run_id, employee_id, run_version, warnings)
            SELECT gen_random_uuid(), $1, $2, g, 1, '[]' FROM generate_series(1, 5000) AS g
            """, [.int(F.tenant), .int(F.run)])
        try shared.execute("ANALYZE payrun.payslip_staging")
        let plan = try shared.query("""
            EXPLAIN SELECT \(PayslipWriter.payslipColumns) FROM payrun.payslip_staging
             WHERE lease_token = '\(StagingKey.random())'::uuid AND tenant_id = \(F.tenant)
            """).map { try $0.string(at: 0) }.joined(separator: "\n")
        #expect(plan.contains("payslip_staging_by_lease_token"), "\(plan)")
        try shared.execute("DELETE FROM payrun.payslip_staging")
    }

    @Test("outside a transaction block the staged rows go through the shared table, whose rows outlive each statement, and are all moved")
    func stagingOutsideATransaction() throws {
        let c = try F.migrated("worker_role_staging_autocommit")
        try F.seed(c)
        let (run, payslips) = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            return try MonthEndFastPathTests.computed(c)
        }
        try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            #expect(try PayslipWriter.writeReportingPath(payslips, run: run, stagingKey: .random(), on: c).path == .direct)
        }
        // A rerun in autocommit (each statement its own transaction): the replacement path.
        try c.execute("SELECT set_config('payrun.tenant_id', $1, false)", [.text(String(F.tenant))])
        #expect(try PayslipWriter.stagingTable(on: c) == "payrun.payslip_staging")
        let again = try PayslipWriter.writeReportingPath(payslips, run: run, stagingKey: .random(), on: c)
        #expect(again.rows == 2 && again.path == .replacement)
        #expect(try MonthEndFastPathTests.revisions(c) == [2, 2])
        #expect(try c.queryOne("SELECT count(*) FROM payrun.payslip_staging")?.int64(at: 0) == 0)
    }

    @Test("a payslip that appears between the check and the staged plain insert: the savepoint is rolled back and the staged rows are upserted")
    func stagedInsertFallsBackOnAnExistingPayslip() throws {
        let c = try F.migrated("worker_role_staged_fallback")
        try F.seed(c)
        try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c) { c in
            let (run, payslips) = try MonthEndFastPathTests.computed(c)
            let key = StagingKey.random()
            let table = try PayslipWriter.stage([(run: run, payslips: payslips)], stagingKey: key, on: c)
            // A recalculation got there first for the monthly employee.
            #expect(try PayslipWriter.write([payslips[1]], run: run, stagingKey: .random(), on: c) == 1)
            let keyValue = PostgresValue.text(key.description)
            #expect(try PayslipWriter.insertStaged(from: table, key: keyValue, tenantId: F.tenant, on: c) == nil)
            // The transaction is still usable and the staged rows are still there.
            #expect(try PayslipWriter.moveStaged(from: table, key: keyValue, tenantId: F.tenant, upsert: true, on: c) == 2)
        }
        #expect(try MonthEndFastPathTests.revisions(c) == [1, 2])
        #expect(try MonthEndFastPathTests.storedRows(c).count == 2)
    }
}
