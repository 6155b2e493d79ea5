import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// The statements of a packed chunk job after session 7's cuts: `finish_us` stored by the
/// completion statement (each part's `run_chunks` row updated once), the workplaces and their
/// calendars read by one prepared statement, and the employees COPY's two forms of the
/// workplace test — each with the same results as before.
@Suite("Packed job statements: one row update per part, merged and prepared reads")
struct CompletionStatementsTests {
    typealias P = PackedMonthEndTests
    typealias W = WrittenChunkTotalsTests

    @Test("a packed job stores each part's finish_us with the completion statement; countAndFinalize then writes no run_chunks row")
    func finishStoredOnce() throws {
        let (c, tenant, job, _) = try W.plannedJob("statements_finish_once")
        try #require(job.count >= 2)
        try c.execute("BEGIN")
        try TenantScope.set(tenant, on: c)
        let runs = try job.map { part in try #require(try PayrollRun.fetch(tenantId: tenant, runId: part.runId, keyShare: true, on: c)) }
        let loaded = try ChunkLoader.loadParts(zip(job, runs).map { ChunkLoader.PartSelection(run: $1, from: $0.from, to: $0.to) }, on: c)
        let computed = ChunkProcessor.computeParts(loaded, calculate: ChunkProcessor.serial)
        try RunFinalizer.lockChunksExclusively(chunks: job.map { ($0.runId, $0.chunkNo) }, on: c)
        _ = try PayslipWriter.write(runs: zip(runs, computed).map { (run: $0, payslips: $1) }, on: c)
        var completions = job.map { RunFinalizer.PartCompletion(runId: $0.runId, chunkNo: $0.chunkNo, loadMicros: 1, computeMicros: 2,
                                                                 writeMicros: 3, shiftsLoaded: 4) }
        for k in completions.indices {
            completions[k].written = WrittenChunkResult(computed[k])
            completions[k].finishMicros = Int64(100 + k)
        }
        let marked = try RunFinalizer.markPartsFinished(tenantId: tenant, parts: completions, chunksLocked: true, on: c)
        // The row version each part's row has after the completion statement.
        func versions() throws -> [String] {
            try job.map { part in
                try #require(try c.queryOne("""
                    SELECT ctid::text || '/' || coalesce(finish_us::text, 'null') FROM payrun.run_chunks
                     WHERE tenant_id = $1 AND run_id = $2 AND chunk_no = $3
                    """, [.int(tenant), .int(part.runId), .int32(part.chunkNo)])).string(at: 0)
            }
        }
        let afterMark = try versions()
        #expect(afterMark.enumerated().allSatisfy { $0.element.hasSuffix("/\(100 + $0.offset)") })
        let finalized = try RunFinalizer.countAndFinalize(tenantId: tenant, firstFinished: marked.firstFinished, finishTimes: [], on: c)
        #expect(try versions() == afterMark)
        // The runs it finalized are those whose every chunk is finished, as before.
        let due = try c.query("""
            SELECT r.id FROM payrun.payroll_runs r WHERE r.id = ANY($1) AND r.chunks_done = r.chunks_total ORDER BY r.id
            """, [.int64Array(runs.map(\.id))]).map { try $0.int64(at: 0) }
        #expect(finalized == due)
        try c.execute("COMMIT")
    }

    @Test("countAndFinalize with finish times still stores them (the form recalculation tools and older callers use)")
    func finishTimesStillStored() throws {
        let (c, tenant, job, _) = try W.plannedJob("statements_finish_times")
        let part = try #require(job.first)
        try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            let completion = RunFinalizer.PartCompletion(runId: part.runId, chunkNo: part.chunkNo, loadMicros: 0, computeMicros: 0,
                                                         writeMicros: 0, shiftsLoaded: 0)
            let marked = try RunFinalizer.markPartsFinished(tenantId: tenant, parts: [completion], chunksLocked: false, on: c)
            #expect(try P.count(c, "SELECT count(*) FROM payrun.run_chunks WHERE run_id = \(part.runId) AND finish_us IS NOT NULL") == 0)
            _ = try RunFinalizer.countAndFinalize(tenantId: tenant, firstFinished: marked.firstFinished,
                                                  finishTimes: [(part.runId, part.chunkNo, 777)], on: c)
        }
        #expect(try P.count(c, "SELECT finish_us FROM payrun.run_chunks WHERE run_id = \(part.runId) AND chunk_no = \(part.chunkNo)") == 777)
    }

    /// The employees of `part`'s run employed in October 2026 in its range, by id.
    static func expectedEmployees(_ c: PostgresConnection, _ part: RunPlanner.Part) throws -> [Int64] {
        try c.query("""
            SELECT e.id FROM payrun.employees e JOIN payrun.payroll_runs r ON r.tenant_id = e.tenant_id AND r.workplace_id = e.workplace_id
             WHERE r.id = $1 AND e.id BETWEEN $2 AND $3
               AND (e.hired_on IS NULL OR e.hired_on <= '2026-10-31') AND (e.left_on IS NULL OR e.left_on >= '2026-10-01')
             ORDER BY e.id
            """, [.int(part.runId), .int(part.from), .int(part.to)]).map { try $0.int64(at: 0) }
    }

    @Test("the employees COPY reads exactly each part's employees with either form of the workplace test, other workplaces' employees in the span left out")
    func employeesEitherForm() throws {
        let c = try P.seeded("statements_employee_forms")
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        // Employees of the largest workplace moved to the second (ids interleave across workplaces).
        try P.interleave(c)
        let outcome = try P.planAll(c, chunkMax: 100_000)
        let tenant = try P.tenant(c)
        let parts = outcome.jobs.flatMap { $0 }.filter { $0.employees > 0 }.sorted { $0.from < $1.from }
        try #require(parts.count >= 5)
        // Dense: two parts with a third between them (its employees lie in the span read), the
        // pair whose ranges cover the most of their span. Sparse: the pair that covers the least.
        func covered(_ pair: [RunPlanner.Part]) -> Int64 { pair.reduce(0) { $0 + $1.to - $1.from + 1 } }
        func span(_ pair: [RunPlanner.Part]) -> Int64 { (pair.map(\.to).max() ?? 0) - (pair.map(\.from).min() ?? 0) }
        let pairs = parts.indices.flatMap { i in parts.indices.filter { $0 > i + 1 }.map { [parts[i], parts[$0]] } }
        let dense = try #require(pairs.max { covered($0) - span($0) / 2 < covered($1) - span($1) / 2 })
        let sparse = try #require(pairs.min { covered($0) - span($0) / 2 < covered($1) - span($1) / 2 })
        try #require(covered(dense) > span(dense) / 2 && covered(sparse) <= span(sparse) / 2)
        for (selection, plusZero) in [(dense, true), (sparse, false)] {
            let chunks = try c.transaction { c in
                try TenantScope.set(tenant, on: c)
                let runs = try selection.map { try #require(try PayrollRun.fetch(tenantId: tenant, runId: $0.runId, on: c)) }
                let condition = ChunkLoader.workplaceCondition(
                    ranges: selection.map { ($0.from, $0.to) }, workplaceIds: runs.map(\.workplaceId),
                    lowest: selection.map(\.from).min() ?? 0, highest: selection.map(\.to).max() ?? 0)
                #expect(condition.hasPrefix("workplace_id + 0 = ") == plusZero, "\(condition)")
                return try ChunkLoader.loadParts(zip(selection, runs).map { ChunkLoader.PartSelection(run: $1, from: $0.from, to: $0.to) },
                                                 on: c)
            }
            for (k, part) in selection.enumerated() {
                #expect(chunks[k].employees.map(\.employeeId) == (try Self.expectedEmployees(c, part)), "part \(k), dense \(plusZero)")
            }
        }
    }

    @Test("the workplace test is plain unless the parts' ranges cover more than half the span")
    func workplaceConditionForms() throws {
        func condition(_ ranges: [(Int64, Int64)]) -> String {
            ChunkLoader.workplaceCondition(ranges: ranges.map { (from: $0.0, to: $0.1) }, workplaceIds: [7, 9],
                                           lowest: ranges.map(\.0).min() ?? 0, highest: ranges.map(\.1).max() ?? 0)
        }
        #expect(condition([(1, 100), (101, 200)]) == "workplace_id + 0 = ANY('{7,9}'::bigint[])")
        #expect(condition([(1, 60), (141, 200)]) == "workplace_id + 0 = ANY('{7,9}'::bigint[])")
        #expect(condition([(1, 40), (161, 200)]) == "workplace_id = ANY('{7,9}'::bigint[])")
        #expect(condition([(1, 1), (1_000_000, 1_000_000)]) == "workplace_id = ANY('{7,9}'::bigint[])")
        #expect(condition([(Int64.min, 0), (1, Int64.max)]) == "workplace_id = ANY('{7,9}'::bigint[])")
    }

    @Test("the workplaces' calendars from the merged statement: national holidays, additions and withdrawals per workplace; a missing workplace is named")
    func workplacesAndCalendars() throws {
        let c = try P.seeded("statements_calendars")
        // `interleave` gives the largest workplace (before it moves employees) a company holiday
        // and withdraws 한글날 for the second largest.
        let sizes = try P.workplaceSizes(c)
        try P.interleave(c)
        let tenant = try P.tenant(c)
        let (largest, second, third) = (sizes[0].workplace, sizes[1].workplace, sizes[2].workplace)
        let start = try #require(LocalDate(year: 2026, month: 9, day: 24)), end = try #require(LocalDate(year: 2026, month: 11, day: 7))
        let data = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try ChunkLoader.loadWorkplaces(tenantId: tenant, workplaceIds: [largest, second, third], windowStart: start,
                                                  windowEnd: end, on: c)
        }
        let national = try c.query("SELECT holiday_date FROM payrun.holidays WHERE holiday_date BETWEEN '2026-09-24' AND '2026-11-07' ORDER BY 1")
            .map { DateConversion.localDate(try $0.date(at: 0)) }
        let hangul = try #require(LocalDate(year: 2026, month: 10, day: 9)), founding = try #require(LocalDate(year: 2026, month: 10, day: 15))
        try #require(national.contains(hangul))
        func dates(_ id: Int64) -> [LocalDate] { data[id]?.calendar.entries.map(\.date) ?? [] }
        #expect(dates(largest) == (national + [founding]).sorted())
        #expect(dates(second) == national.filter { $0 != hangul })
        // The third keeps whatever the seed gave it: the single-run reading's calendar (`loadWorkplace`'s statement).
        let thirdExpected = try c.query("""
            SELECT d FROM (SELECT h.holiday_date AS d FROM payrun.holidays h
                            WHERE h.holiday_date BETWEEN '2026-09-24' AND '2026-11-07'
                              AND NOT EXISTS (SELECT 1 FROM payrun.workplace_holidays w
                                               WHERE w.tenant_id = $1 AND w.workplace_id = $2 AND w.holiday_date = h.holiday_date)
                           UNION ALL
                           SELECT w.holiday_date FROM payrun.workplace_holidays w
                            WHERE w.tenant_id = $1 AND w.workplace_id = $2 AND w.observed
                              AND w.holiday_date BETWEEN '2026-09-24' AND '2026-11-07') AS t ORDER BY d
            """, [.int(tenant), .int(third)]).map { DateConversion.localDate(try $0.date(at: 0)) }
        #expect(dates(third) == thirdExpected)
        #expect(data[largest]?.calendar.entries.first { $0.date == founding }?.kind == .company)
        let error = #expect(throws: PayrollStoreError.self) {
            _ = try c.transaction { c in
                try TenantScope.set(tenant, on: c)
                return try ChunkLoader.loadWorkplaces(tenantId: tenant, workplaceIds: [largest, 987_654], windowStart: start, windowEnd: end, on: c)
            }
        }
        #expect(error?.message == "workplace 987654 does not exist in tenant \(tenant)")
        // Prepared once per connection: a second read does not prepare it again.
        let before = c.preparedStatementCount
        _ = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try ChunkLoader.loadWorkplaces(tenantId: tenant, workplaceIds: [third], windowStart: start, windowEnd: end, on: c)
        }
        #expect(c.preparedStatementCount == before)
    }
}
