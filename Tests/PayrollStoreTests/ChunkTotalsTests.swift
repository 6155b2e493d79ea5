import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// Migration 0016: a finished chunk holds its payslips' counts and totals, runs are finalized
/// from their chunks, and recalculations and approval keep every payslip of a run inside exactly
/// one chunk whose totals are its payslips'.
@Suite("Run totals from chunk totals (0016)")
struct ChunkTotalsTests {
    static let tenant = PayrollDataFixture.tenant

    /// The totals columns, in one order, for chunks (`c.`), payslips (`p.`) and runs.
    static let sums = """
        count(*) FILTER (WHERE p.error IS NULL), count(*) FILTER (WHERE p.error IS NOT NULL),
        coalesce(sum(jsonb_array_length(p.warnings)), 0)::bigint, coalesce(sum(p.gross_won), 0)::bigint,
        coalesce(sum(p.non_taxable_won), 0)::bigint, coalesce(sum(p.taxable_won), 0)::bigint,
        coalesce(sum(p.total_deductions_won), 0)::bigint, coalesce(sum(p.net_won), 0)::bigint
        """

    static func values(_ row: PostgresRow?) throws -> [Int64] {
        guard let row else { return [] }
        return try (0..<8).map { try row.int64(at: $0) }
    }

    /// The run's payslips' totals (all of them, wherever they lie).
    static func payslipTotals(_ c: PostgresConnection, run: Int64) throws -> [Int64] {
        try values(c.queryOne("SELECT \(sums) FROM payrun.payslips p WHERE p.tenant_id = $1 AND p.run_id = $2",
                              [.int(tenant), .int(run)]))
    }

    static func runTotals(_ c: PostgresConnection, run: Int64) throws -> [Int64] {
        try values(c.queryOne("""
            SELECT employees_done::bigint, employees_failed::bigint, warnings_count::bigint, gross_won, non_taxable_won, taxable_won,
                   total_deductions_won, net_won
              FROM payrun.payroll_runs WHERE tenant_id = $1 AND id = $2
            """, [.int(tenant), .int(run)]))
    }

    /// Checks the invariant: every payslip in exactly one chunk; each finished chunk's stored
    /// counts and totals equal its payslips'. Returns the number of finished chunks.
    @discardableResult
    static func expectChunksHoldPayslips(_ c: PostgresConnection, run: Int64, tenant: Int64 = tenant,
                                         sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let outside = try c.queryOne("""
            SELECT count(*) FROM payrun.payslips p
             WHERE p.tenant_id = $1 AND p.run_id = $2
               AND (SELECT count(*) FROM payrun.run_chunks c
                     WHERE c.tenant_id = p.tenant_id AND c.run_id = p.run_id
                       AND p.employee_id BETWEEN c.employee_id_from AND c.employee_id_to) <> 1
            """, [.int(tenant), .int(run)])?.int64(at: 0)
        #expect(outside == 0, "payslips outside exactly one chunk", sourceLocation: sourceLocation)
        let chunks = try c.query("""
            SELECT c.chunk_no, ARRAY[c.employees_done, c.employees_failed, c.warnings_count, c.gross_won, c.non_taxable_won,
                                     c.taxable_won, c.total_deductions_won, c.net_won]::bigint[]::text,
                   (SELECT ARRAY[\(sums)]::bigint[]::text FROM payrun.payslips p
                     WHERE p.tenant_id = c.tenant_id AND p.run_id = c.run_id
                       AND p.employee_id BETWEEN c.employee_id_from AND c.employee_id_to)
              FROM payrun.run_chunks c
             WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.finished_at IS NOT NULL ORDER BY c.chunk_no
            """, [.int(tenant), .int(run)])
        for chunk in chunks {
            let number = try chunk.int32(at: 0)
            #expect(try chunk.string(at: 1) == chunk.string(at: 2), "chunk \(number)", sourceLocation: sourceLocation)
        }
        return chunks.count
    }

    /// The fixture (two employees, 5201 and 5202) with an October run planned one employee per chunk.
    static func plannedInTwoChunks(_ label: String) throws -> (PostgresConnection, Int64) {
        let c = try RunLifecycleTests.seededWithoutRun(label)
        let runId = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)[0].runId
        let planned = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try RunPlanner.plan(tenantId: tenant, runId: runId, chunkEmployeesMax: 1, on: c)
        }
        #expect(planned == .planned(chunks: 2, employees: 2))
        return (c, runId)
    }

    static func processChunk(_ c: PostgresConnection, run: Int64, chunk: Int32, employee: Int64) throws -> Bool {
        try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try ChunkProcessor.process(tenantId: tenant, runId: run, version: 1, chunkNo: chunk, from: employee, to: employee,
                                              on: c).finalizedRun
        }
    }

    static func recalculate(_ c: PostgresConnection, _ employee: Int64) throws -> Recalculation.Outcome {
        try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try Recalculation.run(tenantId: tenant, employeeId: employee, periodStart: PayrollDataFixture.periodStart,
                                         on: c)
        }
    }

    /// Another employee of the fixture's workplace, employed in October, with a contract and shifts.
    static func hire(_ c: PostgresConnection, id: Int64, hiredOn: String = "2026-10-12") throws {
        try c.execute("""
            INSERT INTO payrun.employees (tenant_id, id, workplace_id, employee_number, name, birth_date, hired_on)
            VALUES ($1, $2, $3, $4, '박신입', '1999-02-03', $5::date)
            """, [.int(tenant), .int(id), .int(PayrollDataFixture.workplace), .text("N-\(id)"), .text(hiredOn)])
        try StoreFixture.insertContract(c, tenant: tenant, employee: id, from: hiredOn, toExclusive: nil, wageWon: 10_500)
        for day in 12...16 {
            try c.execute("""
                INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at, break_minutes)
                VALUES ($1, $2, $3::timestamptz, $3::timestamptz + interval '7 hours', 30)
                """, [.int(tenant), .int(id), .text("2026-10-\(day)T10:00:00+09:00")])
        }
    }

    @Test("a calculated run's chunks hold their payslips' counts and totals, and the run's totals are their sum")
    func finalizedFromChunks() throws {
        let (c, runId) = try Self.plannedInTwoChunks("chunk_totals_sum")
        #expect(try !Self.processChunk(c, run: runId, chunk: 1, employee: PayrollDataFixture.monthly))
        #expect(try Self.processChunk(c, run: runId, chunk: 0, employee: PayrollDataFixture.hourly))
        #expect(try Self.expectChunksHoldPayslips(c, run: runId) == 2)
        let totals = try Self.payslipTotals(c, run: runId)
        #expect(totals.count == 8 && totals[0] == 2 && totals[3] > 0)
        #expect(try Self.runTotals(c, run: runId) == totals)
        // The chunks are what the run is finalized from: a chunk's stored totals changed behind
        // payrun's back show up in the run on the next finalization.
        try c.execute("UPDATE payrun.run_chunks SET gross_won = gross_won + 7 WHERE run_id = $1 AND chunk_no = 1", [.int(runId)])
        try c.transaction { c in try RunFinalizer.finalize(tenantId: Self.tenant, runId: runId, on: c) }
        #expect(try Self.runTotals(c, run: runId)[3] == totals[3] + 7)
    }

    @Test("a recalculation moves its chunk's totals with the run's; finalizing again from the chunks gives the payslips' totals")
    func recalculationMovesChunk() throws {
        let (c, runId) = try Self.plannedInTwoChunks("chunk_totals_recalc")
        _ = try Self.processChunk(c, run: runId, chunk: 0, employee: PayrollDataFixture.hourly)
        _ = try Self.processChunk(c, run: runId, chunk: 1, employee: PayrollDataFixture.monthly)
        let before = try Self.payslipTotals(c, run: runId)
        try c.execute("UPDATE payrun.shifts SET ends_at = ends_at + interval '2 hours' WHERE employee_id = $1 AND starts_at = '2026-10-21T09:00:00+09:00'",
                      [.int(PayrollDataFixture.hourly)])
        guard case .replaced = try Self.recalculate(c, PayrollDataFixture.hourly) else { Issue.record("not replaced"); return }
        let after = try Self.payslipTotals(c, run: runId)
        #expect(after[3] > before[3])
        #expect(try Self.expectChunksHoldPayslips(c, run: runId) == 2)
        #expect(try Self.runTotals(c, run: runId) == after)
        try c.transaction { c in try RunFinalizer.finalize(tenantId: Self.tenant, runId: runId, on: c) }
        #expect(try Self.runTotals(c, run: runId) == after)
    }

    @Test("a recalculation while the run is calculating, in a chunk already finished, is in the totals when the last chunk finalizes")
    func recalculationDuringCalculation() throws {
        let (c, runId) = try Self.plannedInTwoChunks("chunk_totals_midrun")
        _ = try Self.processChunk(c, run: runId, chunk: 0, employee: PayrollDataFixture.hourly)
        try c.execute("UPDATE payrun.shifts SET ends_at = ends_at + interval '3 hours' WHERE employee_id = $1 AND starts_at = '2026-10-21T09:00:00+09:00'",
                      [.int(PayrollDataFixture.hourly)])
        guard case .replaced = try Self.recalculate(c, PayrollDataFixture.hourly) else { Issue.record("not replaced"); return }
        #expect(try PayrollRun.fetch(tenantId: Self.tenant, runId: runId, on: c)?.status == .calculating)
        #expect(try Self.expectChunksHoldPayslips(c, run: runId) == 1)
        #expect(try Self.processChunk(c, run: runId, chunk: 1, employee: PayrollDataFixture.monthly))
        #expect(try Self.runTotals(c, run: runId) == Self.payslipTotals(c, run: runId))
    }

    @Test("a recalculation in a chunk whose job is finishing: the chunk's completion waits for it, then counts its payslip")
    func recalculationBeforeCompletion() throws {
        let (c, runId) = try Self.plannedInTwoChunks("chunk_totals_race")
        _ = try Self.processChunk(c, run: runId, chunk: 0, employee: PayrollDataFixture.hourly)
        // The recalculation writes the monthly employee's payslip into unfinished chunk 1 and stays open.
        try c.execute("BEGIN")
        try TenantScope.set(Self.tenant, on: c)
        let outcome = try Recalculation.run(tenantId: Self.tenant, employeeId: PayrollDataFixture.monthly,
                                            periodStart: PayrollDataFixture.periodStart, on: c)
        guard case .replaced = outcome else { Issue.record("not replaced: \(outcome)"); try c.execute("ROLLBACK"); return }
        // Chunk 1's completion (its job's last step) must wait for it, not sum the payslips without it.
        let completion = BackgroundWork<Bool>(url: c.connectionString) { other in
            try other.transaction { other in
                try TenantScope.set(Self.tenant, on: other)
                return try RunFinalizer.completeChunk(tenantId: Self.tenant, runId: runId, chunkNo: 1, on: other)
            }
        }
        try waitForLockWait(on: c, who: "the chunk's completion")
        try c.execute("COMMIT")
        #expect(try completion.result().get())
        #expect(try Self.expectChunksHoldPayslips(c, run: runId) == 2)
        let totals = try Self.payslipTotals(c, run: runId)
        #expect(totals[0] == 2)
        #expect(try Self.runTotals(c, run: runId) == totals)
    }

    @Test("a recalculation while its chunk's completion is uncommitted waits for it, then moves the finished chunk by the difference")
    func completionBeforeRecalculation() throws {
        let (c, runId) = try Self.plannedInTwoChunks("chunk_totals_race2")
        _ = try Self.processChunk(c, run: runId, chunk: 0, employee: PayrollDataFixture.hourly)
        // Chunk 1's job has written its payslip and completed the chunk (finalizing the run), not committed yet.
        try c.execute("BEGIN")
        try TenantScope.set(Self.tenant, on: c)
        let run = try #require(try PayrollRun.fetch(tenantId: Self.tenant, runId: runId, keyShare: true, on: c))
        let chunk = try ChunkLoader.load(run: run, selection: .range(from: PayrollDataFixture.monthly, to: PayrollDataFixture.monthly), on: c)
        try PayslipWriter.write(ChunkProcessor.compute(chunk, calculate: ChunkProcessor.serial), run: run, on: c)
        #expect(try RunFinalizer.completeChunk(tenantId: Self.tenant, runId: runId, chunkNo: 1, on: c))
        try c.execute("UPDATE payrun.shifts SET ends_at = ends_at + interval '1 hour' WHERE employee_id = $1 AND starts_at = '2026-10-22T09:00:00+09:00'",
                      [.int(PayrollDataFixture.monthly)])
        let recalculation = BackgroundWork<Bool>(url: c.connectionString) { other in
            try other.transaction { other in
                try TenantScope.set(Self.tenant, on: other)
                let outcome = try Recalculation.run(tenantId: Self.tenant, employeeId: PayrollDataFixture.monthly,
                                                    periodStart: PayrollDataFixture.periodStart, on: other)
                if case .replaced = outcome { return true }
                return false
            }
        }
        try waitForLockWait(on: c, who: "the recalculation")
        try c.execute("COMMIT")
        #expect(try recalculation.result().get())
        #expect(try Self.expectChunksHoldPayslips(c, run: runId) == 2)
        #expect(try Self.runTotals(c, run: runId) == Self.payslipTotals(c, run: runId))
    }

    @Test("employees hired after planning, below the first and above the last chunk, widen those chunks; the run, its approval and its digest count them")
    func strayPayslipsWidenChunks() throws {
        let (c, runId) = try Self.plannedInTwoChunks("chunk_totals_stray")
        _ = try Self.processChunk(c, run: runId, chunk: 0, employee: PayrollDataFixture.hourly)
        _ = try Self.processChunk(c, run: runId, chunk: 1, employee: PayrollDataFixture.monthly)
        let digestBefore = try PayrollRun.fetch(tenantId: Self.tenant, runId: runId, on: c)?.inputDigestHex
        try Self.hire(c, id: 5199)
        try Self.hire(c, id: 5203)
        let outcomes = try c.transaction { c in
            try TenantScope.set(Self.tenant, on: c)
            return try BatchRecalculation.run(tenantId: Self.tenant,
                                              requests: [.init(employeeId: 5203, periodStart: PayrollDataFixture.periodStart),
                                                         .init(employeeId: 5199, periodStart: PayrollDataFixture.periodStart)],
                                              on: c)
        }
        #expect(outcomes.allSatisfy { if case .replaced = $0 { true } else { false } })
        let ranges = try c.query("SELECT employee_id_from, employee_id_to FROM payrun.run_chunks WHERE run_id = $1 ORDER BY chunk_no",
                                 [.int(runId)]).map { [try $0.int64(at: 0), try $0.int64(at: 1)] }
        #expect(ranges == [[5199, PayrollDataFixture.hourly], [PayrollDataFixture.monthly, 5203]])
        #expect(try Self.expectChunksHoldPayslips(c, run: runId) == 2)
        let totals = try Self.payslipTotals(c, run: runId)
        #expect(totals[0] == 4)
        #expect(try Self.runTotals(c, run: runId) == totals)
        let approved = try c.transaction { c in try RunApproval.approve(tenantId: Self.tenant, runId: runId, approvedBy: "test", on: c) }
        #expect(approved.status == .approved && approved.employeesDone == 4)
        #expect(try Self.runTotals(c, run: runId) == totals)
        #expect(approved.inputDigestHex != nil && approved.inputDigestHex != digestBefore)
    }

    @Test("a run planned with no employee gets a finished chunk 0 when an employee hired later is recalculated")
    func emptyRunGetsAChunk() throws {
        let c = try RunLifecycleTests.seededWithoutRun("chunk_totals_empty")
        try c.execute("UPDATE payrun.employees SET left_on = '2026-09-30'")
        let runId = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)[0].runId
        _ = try c.transaction { c in
            try TenantScope.set(Self.tenant, on: c)
            return try RunPlanner.plan(tenantId: Self.tenant, runId: runId, on: c)
        }
        var run = try PayrollRun.fetch(tenantId: Self.tenant, runId: runId, on: c)
        #expect(run?.status == .calculated && run?.chunksTotal == 0)
        try Self.hire(c, id: 5210)
        guard case .replaced = try Self.recalculate(c, 5210) else { Issue.record("not replaced"); return }
        run = try PayrollRun.fetch(tenantId: Self.tenant, runId: runId, on: c)
        #expect(run?.chunksTotal == 1 && run?.chunksDone == 1 && run?.employeesDone == 1)
        #expect(try Self.expectChunksHoldPayslips(c, run: runId) == 1)
        #expect(try Self.runTotals(c, run: runId) == Self.payslipTotals(c, run: runId))
        let approved = try c.transaction { c in try RunApproval.approve(tenantId: Self.tenant, runId: runId, approvedBy: "test", on: c) }
        #expect(approved.status == .approved && approved.employeesDone == 1)
        #expect(try Self.runTotals(c, run: runId) == Self.payslipTotals(c, run: runId))
    }

    @Test("migrating a store to 0016 gives chunks finished before it their payslips' totals and leaves unfinished ones empty")
    func migrationBackfills() throws {
        let c = try StoreTestDatabase.connectToEmpty("chunk_totals_migration")
        let all = try Migrator().migrations
        try Migrator(migrations: all.filter { $0.version < 16 }).migrate(c)
        try StoreFixture.populateTwoTenants(c)
        try c.execute("""
            INSERT INTO payrun.run_chunks (tenant_id, run_id, chunk_no, employee_id_from, employee_id_to, employees_planned,
                                           input_digest, employees_done, employees_failed, finished_at)
            VALUES ($1, $2, 0, $3, $3, 1, sha256('x'), 1, 0, now()), ($4, $5, 0, $6, $6, 1, NULL, NULL, NULL, NULL)
            """, [.int(StoreFixture.tenantA), .int(StoreFixture.runA), .int(StoreFixture.employeeA),
                  .int(StoreFixture.tenantB), .int(StoreFixture.runB), .int(StoreFixture.employeeB)])
        try Migrator().migrate(c)
        let rows = try c.query("""
            SELECT tenant_id, warnings_count, gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won
              FROM payrun.run_chunks ORDER BY tenant_id
            """).map { row in try (0..<7).map { try row.decode(Int64?.self, at: $0) } }
        #expect(rows == [[StoreFixture.tenantA, 0, 1_692_480, 0, 1_692_480, 80_370, 1_612_110],
                         [StoreFixture.tenantB, nil, nil, nil, nil, nil, nil]])
        // Finished without totals is refused from now on.
        #expect(throws: PostgresError.self) {
            try c.execute("UPDATE payrun.run_chunks SET net_won = NULL WHERE tenant_id = $1", [.int(StoreFixture.tenantA)])
        }
    }
}
