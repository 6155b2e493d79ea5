import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// `PayslipWriter.firstCalculationCheck` is planned for `payslips` as the table is when it runs, in
/// a session that checked many times while the table was empty: a long-running worker's second
/// month-end after a TRUNCATE (the bench), or the first month-end of a new database. As a prepared
/// statement its generic plan, made on the empty table, was a sequential scan that it kept while
/// the month-end filled the table, so each job read every payslip written so far.
@Suite("Payslip reads of a month-end's session: planned for the table as it is")
struct FirstCalculationCheckPlanTests {
    typealias P = PackedMonthEndTests

    /// Sequential and index scans of `payslips` in the current transaction so far.
    static func scans(_ c: PostgresConnection) throws -> (seq: Int64, index: Int64) {
        let row = try #require(try c.queryOne("""
            SELECT coalesce(seq_scan, 0), coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables
             WHERE relid = 'payrun.payslips'::regclass
            """))
        return (try row.int64(at: 0), try row.int64(at: 1))
    }

    @Test("after many checks on the empty table and a month-end that filled it, the check probes the primary key and reads no table whole")
    func checkUsesTheIndexAfterTheTableGrew() throws {
        let c = try P.seeded("first_check_plan")
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let jobs = try P.planAll(c, chunkMax: try P.chunkMax(c)).jobs
        try #require(jobs.count >= 3)
        let tenant = try P.tenant(c)
        // The first job's payslips computed (not written), for the check's ranges.
        let job = jobs[0]
        let groups = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            let runs = try job.map { part in try #require(try PayrollRun.fetch(tenantId: tenant, runId: part.runId, on: c)) }
            let loaded = try ChunkLoader.loadParts(zip(job, runs).map { ChunkLoader.PartSelection(run: $1, from: $0.from, to: $0.to) },
                                                   on: c)
            let computed = ChunkProcessor.computeParts(loaded, calculate: ChunkProcessor.serial)
            return zip(runs, computed).map { (run: $0, payslips: $1) }
        }
        #expect(try P.count(c, "SELECT count(*) FROM payrun.payslips") == 0)
        try c.execute("ANALYZE payrun.payslips")
        // More checks than PostgreSQL's five custom plans before it weighs a generic one.
        for _ in 0..<8 {
            let check = try PayslipWriter.firstCalculationCheck(groups, on: c)
            #expect(!check.payslipsExist)
        }
        // The rest of the month-end fills the table (no ANALYZE since).
        for other in jobs.dropFirst() { _ = try P.process(c, other) }
        let stored = try P.count(c, "SELECT count(*) FROM payrun.payslips")
        #expect(stored >= 100)
        let scanned = try c.transaction { c in
            let before = try Self.scans(c)
            let check = try PayslipWriter.firstCalculationCheck(groups, on: c)
            #expect(!check.payslipsExist)
            let after = try Self.scans(c)
            return (seq: after.seq - before.seq, index: after.index - before.index)
        }
        #expect(scanned.seq == 0, "the check read payslips (\(stored) rows) by a sequential scan")
        #expect(scanned.index >= 1)
        // And it still sees a payslip in range once the job is written.
        _ = try P.process(c, job)
        #expect(try PayslipWriter.firstCalculationCheck(groups, on: c).payslipsExist)
    }

    /// Payslip tuples read by sequential scans in the current transaction so far.
    static func sequentiallyRead(_ c: PostgresConnection) throws -> Int64 {
        try #require(try c.queryOne("""
            SELECT coalesce(seq_tup_read, 0) FROM pg_stat_xact_user_tables WHERE relid = 'payrun.payslips'::regclass
            """)).int64(at: 0)
    }

    @Test("reruns in the session that wrote a whole month-end from an emptied table (its prepared statements' plans made meanwhile) read the payslips they replace and re-sum by index only")
    func rerunsReadByIndex() throws {
        let c = try P.seeded("first_check_plan_reruns")
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        // Small jobs: many executions of every statement while the table fills.
        let jobs = try P.planAll(c, chunkMax: 20).jobs
        try #require(jobs.count >= 8)
        try c.execute("ANALYZE payrun.payslips")
        for job in jobs { _ = try P.process(c, job) }
        #expect(try P.count(c, "SELECT count(*) FROM payrun.payslips") >= 100)
        let tenant = try P.tenant(c)
        for job in jobs.prefix(3) {
            let read = try c.transaction { c in
                let before = (try Self.scans(c), try Self.sequentiallyRead(c))
                try TenantScope.set(tenant, on: c)
                let outcome = try ChunkProcessor.processParts(tenantId: tenant, parts: P.requests(job), on: c)
                #expect(outcome.partsDone == job.count && outcome.partsSummedInWorker == 0, "a rerun re-reads its chunks")
                let after = (try Self.scans(c), try Self.sequentiallyRead(c))
                return (tuples: after.1 - before.1, index: after.0.index - before.0.index)
            }
            #expect(read.tuples == 0, "a rerun read \(read.tuples) payslips by sequential scan")
            #expect(read.index >= 1)
        }
    }
}
