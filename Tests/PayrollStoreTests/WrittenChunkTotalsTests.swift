import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// A packed chunk job's completion from what it wrote (`WrittenChunkResult`, the direct-COPY path
/// of `ChunkProcessor.processParts` with the chunks locked before the write): the same digest,
/// counts and totals as `RunFinalizer.chunkDigestSQL` over the stored payslips, the re-read kept
/// wherever the chunk may hold other payslips, and recalculations racing the job still counted once.
@Suite("Chunk completion from the written payslips")
struct WrittenChunkTotalsTests {
    typealias P = PackedMonthEndTests
    typealias T = ChunkTotalsTests

    /// A seeded store planned in packed jobs; the job with the most parts.
    static func plannedJob(_ label: String) throws -> (PostgresConnection, tenant: Int64, job: [RunPlanner.Part], all: [[RunPlanner.Part]]) {
        let c = try P.seeded(label)
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let outcome = try P.planAll(c, chunkMax: try P.chunkMax(c))
        let job = try #require(outcome.jobs.max { $0.count < $1.count })
        return (c, try P.tenant(c), job, outcome.jobs)
    }

    /// `chunkDigestSQL` over the chunk's stored payslips now, and the chunk's stored columns:
    /// [digest hex, done, failed, warnings, gross, non-taxable, taxable, deductions, net] each.
    static func sqlAndStored(_ c: PostgresConnection, run: Int64, chunk: Int32) throws -> (sql: [String], stored: [String]) {
        let row = try #require(try c.queryOne("""
            SELECT ARRAY[encode(d.digest, 'hex'), d.ok::text, d.failed::text, d.warnings::text, d.gross::text,
                         d.non_taxable::text, d.taxable::text, d.deductions::text, d.net::text]::text,
                   ARRAY[encode(c.input_digest, 'hex'), c.employees_done::text, c.employees_failed::text, c.warnings_count::text,
                         c.gross_won::text, c.non_taxable_won::text, c.taxable_won::text, c.total_deductions_won::text,
                         c.net_won::text]::text
              FROM payrun.run_chunks c,
                   LATERAL (\(RunFinalizer.chunkDigestSQL)) AS d(digest, ok, failed, warnings, gross, non_taxable, taxable, deductions, net)
             WHERE c.run_id = $1 AND c.chunk_no = $2
            """, [.int(run), .int32(chunk)]))
        return ([try row.string(at: 0)], [try row.string(at: 1)])
    }

    static func hex(_ w: WrittenChunkResult) -> String {
        let digits = w.digest.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        return "{" + ([digits] + w.values.map(String.init)).joined(separator: ",") + "}"
    }

    @Test("the worker's digest, counts and totals of parts with failures and warnings equal chunkDigestSQL's over the stored payslips, and are what completion stores")
    func writtenEqualsSQL() throws {
        let (c, tenant, job, _) = try Self.plannedJob("written_totals_equal")
        try #require(job.count >= 2)
        try c.execute("BEGIN")
        try TenantScope.set(tenant, on: c)
        let runs = try job.map { part in try #require(try PayrollRun.fetch(tenantId: tenant, runId: part.runId, keyShare: true, on: c)) }
        let loaded = try ChunkLoader.loadParts(zip(job, runs).map { ChunkLoader.PartSelection(run: $1, from: $0.from, to: $0.to) }, on: c)
        var computed = ChunkProcessor.computeParts(loaded, calculate: ChunkProcessor.serial)
        // In every part: its first employee fails (input digest kept, as for a calculation error),
        // its last has two warnings more.
        var failures = 0, warned = 0
        for k in computed.indices where computed[k].count >= 2 {
            computed[k][0].result = .failure(PayrollError(.invalidValue, "test failure \"quoted\" 한글", field: "shifts[0]"))
            failures += 1
            let last = computed[k].count - 1
            if case .success(var slip) = computed[k][last].result {
                slip.warnings += [PayrollWarning(code: .belowMinimumWage, message: "test warning"),
                                  PayrollWarning(code: .breakBelowStatutory, message: "another", date: LocalDate(year: 2026, month: 10, day: 5))]
                computed[k][last].result = .success(slip)
                warned += 1
            }
        }
        try #require(failures >= 2 && warned >= 2)
        let written = try computed.map { try #require(WrittenChunkResult($0)) }
        try RunFinalizer.lockChunksExclusively(chunks: job.map { ($0.runId, $0.chunkNo) }, on: c)
        let path = try PayslipWriter.write(runs: zip(runs, computed).map { (run: $0, payslips: $1) }, on: c).path
        #expect(path == .direct)
        // Before completion: the worker's values are chunkDigestSQL's over what is stored.
        for (k, part) in job.enumerated() {
            #expect(try Self.sqlAndStored(c, run: part.runId, chunk: part.chunkNo).sql == [Self.hex(written[k])], "part \(k)")
            if computed[k].count >= 2 { #expect(written[k].failed >= 1 && written[k].warnings >= 2) }
        }
        var completions = job.map { RunFinalizer.PartCompletion(runId: $0.runId, chunkNo: $0.chunkNo, loadMicros: 1, computeMicros: 2,
                                                                 writeMicros: 3, shiftsLoaded: 4) }
        for k in completions.indices { completions[k].written = written[k] }
        let completed = try RunFinalizer.markPartsFinished(tenantId: tenant, parts: completions, chunksLocked: true, on: c)
        #expect(completed.writtenUsed == job.count)
        for part in job {
            let values = try Self.sqlAndStored(c, run: part.runId, chunk: part.chunkNo)
            #expect(values.stored == values.sql, "chunk \(part.chunkNo) of run \(part.runId)")
        }
        try c.execute("COMMIT")
        // A payslip without an input digest (its input could not be built) is not summed in the worker.
        var undigested = computed[0]
        undigested[0].inputDigest = nil
        #expect(WrittenChunkResult(undigested) == nil)
        #expect(WrittenChunkResult([]) == nil)
    }

    @Test("a packed month-end takes the written totals for every direct-COPY part and re-reads on a rerun; the chunks hold their payslips either way")
    func packedJobsUseWrittenTotals() throws {
        let (c, tenant, _, jobs) = try Self.plannedJob("written_totals_jobs")
        let runs = try c.query("SELECT id FROM payrun.payroll_runs ORDER BY id").map { try $0.int64(at: 0) }
        // Every part of a job that writes by direct COPY (all but a job of one payslip: a single upsert).
        var summed = 0, expected = 0
        for job in jobs {
            let done = try P.process(c, job)
            summed += done.partsSummedInWorker
            let employees = job.reduce(0) { $0 + $1.employees }
            expected += employees <= 1 ? 0 : job.filter { $0.employees > 0 }.count
        }
        #expect(summed > 0 && summed == expected)
        #expect(try P.count(c, "SELECT count(*) FROM payrun.payroll_runs WHERE status NOT LIKE 'calculated%'") == 0)
        for run in runs { try T.expectChunksHoldPayslips(c, run: run, tenant: tenant) }
        let again = try P.process(c, jobs[0])
        #expect(again.partsDone == jobs[0].count && again.partsSummedInWorker == 0)
        for run in runs { try T.expectChunksHoldPayslips(c, run: run, tenant: tenant) }
        #expect(try P.count(c, "SELECT count(*) FROM payrun.run_chunks WHERE finish_us IS NULL OR load_us IS NULL") == 0)
    }

    @Test("a payslip already in a chunk's range outside the employees the job writes: completion sums the stored payslips")
    func otherPayslipInRangeIsReread() throws {
        let (c, tenant, job, _) = try Self.plannedJob("written_totals_probe")
        let part = try #require(job.first { $0.employees >= 3 })
        let run = try #require(try PayrollRun.fetch(tenantId: tenant, runId: part.runId, on: c))
        let loaded = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try ChunkLoader.load(run: run, selection: .range(from: part.from, to: part.to), on: c)
        }
        let computed = ChunkProcessor.compute(loaded, calculate: ChunkProcessor.serial)
        // The part's first employee already has a payslip (committed); the job writes the others.
        try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            try PayslipWriter.write([computed[0]], run: run, on: c)
        }
        try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            try RunFinalizer.lockChunksExclusively(chunks: [(part.runId, part.chunkNo)], on: c)
            let rest = Array(computed.dropFirst())
            #expect(try PayslipWriter.write(rest, run: run, on: c) == rest.count)
            var completion = RunFinalizer.PartCompletion(runId: part.runId, chunkNo: part.chunkNo, loadMicros: 0, computeMicros: 0,
                                                         writeMicros: 0, shiftsLoaded: 0)
            completion.written = WrittenChunkResult(rest)
            #expect(completion.written != nil)
            let completed = try RunFinalizer.markPartsFinished(tenantId: tenant, parts: [completion], chunksLocked: true, on: c)
            #expect(completed.writtenUsed == 0)
            _ = try RunFinalizer.countAndFinalize(tenantId: tenant, firstFinished: completed.firstFinished, finishTimes: [], on: c)
        }
        let values = try Self.sqlAndStored(c, run: part.runId, chunk: part.chunkNo)
        #expect(values.stored == values.sql)
        #expect(try P.count(c, "SELECT employees_done + employees_failed FROM payrun.run_chunks WHERE run_id = \(part.runId) AND chunk_no = \(part.chunkNo)")
                == Int64(computed.count))
    }

    /// One employee of `part`, with a shift changed so that a recalculation changes the payslip.
    static func changeShift(_ c: PostgresConnection, employee: Int64) throws {
        try c.execute("""
            UPDATE payrun.shifts SET ends_at = ends_at + interval '1 hour'
             WHERE id = (SELECT id FROM payrun.shifts WHERE employee_id = $1 AND starts_at >= '2026-10-01' ORDER BY starts_at LIMIT 1)
            """, [.int(employee)])
    }

    static func recalculation(_ url: String, tenant: Int64, employee: Int64) -> BackgroundWork<Bool> {
        BackgroundWork<Bool>(url: url) { other in
            try other.execute("SET statement_timeout = '20s'")
            return try other.transaction { other in
                try TenantScope.set(tenant, on: other)
                if case .replaced = try Recalculation.run(tenantId: tenant, employeeId: employee,
                                                          periodStart: PayrollDataFixture.periodStart,
                                                          on: other) { return true }
                return false
            }
        }
    }

    @Test("a recalculation of an employee a packed job has written (uncommitted) waits for the job, then moves the finished chunk by the difference")
    func recalculationAfterPackedWrite() throws {
        let (c, tenant, job, _) = try Self.plannedJob("written_totals_race_after")
        let employee = try #require(try c.queryOne("""
            SELECT min(id) FROM payrun.employees WHERE id BETWEEN $1 AND $2 AND (left_on IS NULL OR left_on >= '2026-10-01')
            """, [.int(job[0].from), .int(job[0].to)])?.int64(at: 0))
        try Self.changeShift(c, employee: employee)
        try c.execute("BEGIN")
        try TenantScope.set(tenant, on: c)
        let outcome = try ChunkProcessor.processParts(tenantId: tenant, parts: P.requests(job), on: c)
        #expect(outcome.partsSummedInWorker == job.count)
        let recalc = Self.recalculation(c.connectionString, tenant: tenant, employee: employee)
        try waitForLockWait(on: c, who: "the recalculation")
        try c.execute("COMMIT")
        #expect(try recalc.result().get())
        for run in Set(job.map(\.runId)) { try T.expectChunksHoldPayslips(c, run: run, tenant: tenant) }
    }

    @Test("a packed job starting while a recalculation in its chunk is uncommitted waits for it, then stores and counts the chunk's payslips")
    func recalculationBeforePackedWrite() throws {
        let (c, tenant, job, _) = try Self.plannedJob("written_totals_race_before")
        let employee = try #require(try c.queryOne("""
            SELECT min(id) FROM payrun.employees WHERE id BETWEEN $1 AND $2 AND (left_on IS NULL OR left_on >= '2026-10-01')
            """, [.int(job[0].from), .int(job[0].to)])?.int64(at: 0))
        // Runs are `calculating` once planned; the recalculation writes into unfinished chunk job[0] and stays open.
        try c.execute("BEGIN")
        try TenantScope.set(tenant, on: c)
        guard case .replaced = try Recalculation.run(tenantId: tenant, employeeId: employee, periodStart: PayrollDataFixture.periodStart,
                                                    on: c)
        else { Issue.record("not replaced"); try c.execute("ROLLBACK"); return }
        let packed = BackgroundWork<ChunkProcessor.PartsOutcome>(url: c.connectionString) { other in
            try other.execute("SET statement_timeout = '20s'")
            return try other.transaction { t in
                try TenantScope.set(tenant, on: t)
                return try ChunkProcessor.processParts(tenantId: tenant, parts: P.requests(job), on: t)
            }
        }
        try waitForLockWait(on: c, who: "the packed job")
        try c.execute("COMMIT")
        let outcome = try packed.result().get()
        #expect(outcome.partsDone == job.count && outcome.partsSummedInWorker == 0)
        for run in Set(job.map(\.runId)) { try T.expectChunksHoldPayslips(c, run: run, tenant: tenant) }
    }
}
