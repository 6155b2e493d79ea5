import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// Workers in production log in as plain members of `payrun_worker`: no BYPASSRLS, so row-level
/// security applies to them, and PostgreSQL refuses COPY FROM into a table under row-level
/// security. They COPY a first calculation's payslips as `payrun_payslip_writer` (0022) and,
/// where that role is not theirs to use, insert them from column arrays. These tests run the
/// month-end as that role.
@Suite("Month-end as a payrun_worker member")
struct WorkerRoleMonthEndTests {
    typealias F = PayrollDataFixture

    @Test("as payrun_worker a chunk plans, loads, computes and stores every payslip, equal to the calculator's")
    func workerRoleComputesAChunk() throws {
        let c = try F.migrated("worker_role_chunk")
        try F.seed(c, runStatus: "planned")
        let outcome = try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c) { c in
            _ = try RunPlanner.plan(tenantId: F.tenant, runId: F.run, on: c)
            return try ChunkProcessor.process(tenantId: F.tenant, runId: F.run, version: 1, chunkNo: 0,
                                              from: F.hourly, to: F.monthly, on: c)
        }
        #expect(outcome.employees == 2 && outcome.failures.isEmpty && outcome.finalizedRun)
        let stored = try StoredPayslip.fetch(tenantId: F.tenant, runId: F.run, on: c)
        #expect(stored.map(\.employeeId) == [F.hourly, F.monthly])
        for s in stored {
            #expect(try s.result.get() == (try PayrollCalculator.calculate(F.expectedInput(s.employeeId))))
        }
        #expect(try Self.temporaryTables(c) == 0)
        #expect(try c.queryOne("SELECT status FROM payrun.payroll_runs WHERE id = $1", [.int(F.run)])?.string(at: 0) == "calculated")
    }

    @Test("under row-level security the writer COPYs as payrun_payslip_writer, or without that role inserts the arrays; the owner COPYs; all store the same rows")
    func writerPathFollowsRowSecurity() throws {
        let c = try F.migrated("worker_role_writer")
        try F.seed(c)
        func write(asWorker: Bool) throws -> PayslipWriter.Path {
            let body = { (c: PostgresConnection) throws -> PayslipWriter.Path in
                let run = try F.run(c)
                let chunk = try ChunkLoader.load(run: run, selection: .range(from: F.hourly, to: F.monthly), on: c)
                let payslips = ChunkProcessor.compute(chunk, calculate: ChunkProcessor.serial)
                return try PayslipWriter.writeReportingPath(payslips, run: run, on: c).path
            }
            if asWorker { return try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c, body) }
            return try c.transaction { c in try TenantScope.set(F.tenant, on: c); return try body(c) }
        }
        #expect(try write(asWorker: true) == .direct)
        let byWorker = try MonthEndFastPathTests.storedRows(c)
        #expect(try MonthEndFastPathTests.revisions(c) == [1, 1])
        // A rerun by the worker replaces them (the upsert, under the policy), the same rows a revision up.
        #expect(try write(asWorker: true) == .replacement)
        #expect(try MonthEndFastPathTests.storedRows(c) == byWorker)
        #expect(try MonthEndFastPathTests.revisions(c) == [2, 2])
        try c.execute("DELETE FROM payrun.payslips WHERE run_id = $1", [.int(F.run)])
        #expect(try write(asWorker: false) == .direct)
        #expect(try MonthEndFastPathTests.storedRows(c) == byWorker)
        // Without the writer role's INSERT privilege in this database: the column arrays.
        try c.execute("DELETE FROM payrun.payslips WHERE run_id = $1", [.int(F.run)])
        try c.execute("REVOKE INSERT ON payrun.payslips FROM payrun_payslip_writer")
        #expect(try write(asWorker: true) == .inserted)
        #expect(try MonthEndFastPathTests.storedRows(c) == byWorker)
        #expect(try MonthEndFastPathTests.revisions(c) == [1, 1])
        #expect(byWorker.count == 2)
    }

    @Test("as payrun_worker a packed month-end stores the owner's payslips and runs, and completes every inserted part from the worker's sums")
    func workerRolePackedMonthEnd() throws {
        typealias P = PackedMonthEndTests
        func monthEnd(_ label: String, asWorker: Bool) throws -> (PostgresConnection, summed: Int, expected: Int) {
            let (c, tenant, _, jobs) = try WrittenChunkTotalsTests.plannedJob(label)
            var summed = 0, expected = 0
            for job in jobs {
                let outcome = asWorker
                    ? try StoreFixture.asRole("payrun_worker", tenant: tenant, on: c) { c in
                        try ChunkProcessor.processParts(tenantId: tenant, parts: P.requests(job), on: c)
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
    }

    /// How many temporary tables this session has (the writer makes none).
    static func temporaryTables(_ c: PostgresConnection) throws -> Int64? {
        try c.queryOne("SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()")?.int64(at: 0)
    }

    @Test("without the TEMP privilege, in a rolled-back transaction and in autocommit the worker writes the same rows, through no table of its own")
    func writesNeedNoScratchTable() throws {
        let c = try F.migrated("worker_role_insert_paths")
        try F.seed(c)
        func writeAsWorker(_ c: PostgresConnection) throws -> PayslipWriter.Path {
            let (run, payslips) = try MonthEndFastPathTests.computed(c)
            return try PayslipWriter.writeReportingPath(payslips, run: run, on: c).path
        }
        // A role that may not create temporary tables, and may not COPY as payrun_payslip_writer
        // here (the column arrays are what this test is about).
        let database = try #require(try c.queryOne("SELECT current_database()")?.string(at: 0))
        try c.execute("REVOKE TEMPORARY ON DATABASE \"\(database)\" FROM PUBLIC")
        try c.execute("REVOKE INSERT ON payrun.payslips FROM payrun_payslip_writer")
        // A write in a transaction that rolls back leaves nothing; the next one writes it all.
        try c.execute("BEGIN")
        try c.execute("SET LOCAL ROLE payrun_worker")
        try TenantScope.set(F.tenant, on: c)
        #expect(try writeAsWorker(c) == .inserted)
        try c.execute("ROLLBACK")
        #expect(try MonthEndFastPathTests.storedRows(c).isEmpty)
        #expect(try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c, writeAsWorker) == .inserted)
        let inserted = try MonthEndFastPathTests.storedRows(c)
        #expect(inserted.count == 2)
        #expect(try Self.temporaryTables(c) == 0)
        // A rerun in autocommit (each statement its own transaction): one upsert of every row.
        let (run, payslips) = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            return try MonthEndFastPathTests.computed(c)
        }
        try c.execute("SET ROLE payrun_worker")
        try c.execute("SELECT set_config('payrun.tenant_id', $1, false)", [.text(String(F.tenant))])
        let again = try PayslipWriter.writeReportingPath(payslips, run: run, on: c)
        try c.execute("RESET ROLE")
        #expect(again.rows == 2 && again.path == .replacement)
        #expect(try MonthEndFastPathTests.revisions(c) == [2, 2])
        #expect(try MonthEndFastPathTests.storedRows(c) == inserted)
        try c.execute("GRANT TEMPORARY ON DATABASE \"\(database)\" TO PUBLIC")
    }

    @Test("a payslip that appears between the check and the plain insert: the savepoint is rolled back and the same rows are upserted")
    func plainInsertFallsBackOnAnExistingPayslip() throws {
        let c = try F.migrated("worker_role_insert_fallback")
        try F.seed(c)
        try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c) { c in
            let (run, payslips) = try MonthEndFastPathTests.computed(c)
            let columns = PayslipWriter.columnArrays([(run: run, payslips: payslips)])
            // A recalculation got there first for the monthly employee.
            #expect(try PayslipWriter.write([payslips[1]], run: run, on: c) == 1)
            #expect(try PayslipWriter.unlessUniqueViolation(savepoint: "payslips_inserted", on: c) {
                try PayslipWriter.insert(columns, upsert: false, on: c)
            } == nil)
            // The transaction is still usable.
            #expect(try PayslipWriter.insert(columns, upsert: true, on: c) == 2)
        }
        #expect(try MonthEndFastPathTests.revisions(c) == [1, 2])
        #expect(try MonthEndFastPathTests.storedRows(c).count == 2)
    }
}
