import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// A tenant's month-end scheduled at once and its small runs packed into shared chunk jobs
/// (`RunScheduler.createRuns`, `RunPlanner.planMany`, `ChunkProcessor.processParts`), on a seeded
/// store: workplaces of 1–4, 5–49 and 50+ employees, company and withdrawn holidays.
@Suite("Packed month-end: one plan job per tenant, many runs per chunk job")
struct PackedMonthEndTests {
    static let spec = SeedSpec(tenants: 1, employees: 300, seed: 11)

    static func seeded(_ label: String) throws -> PostgresConnection {
        let c = try StoreFixture.migrated(label)
        _ = try StoreSeeder.seed(spec, on: c)
        return c
    }

    static func count(_ c: PostgresConnection, _ sql: String) throws -> Int64 {
        try c.queryOne(sql)?.int64(at: 0) ?? -1
    }

    static func tenant(_ c: PostgresConnection) throws -> Int64 {
        try c.queryOne("SELECT min(id) FROM payrun.tenants")?.int64(at: 0) ?? -1
    }

    /// Employees per workplace (employed in October 2026), largest first.
    static func workplaceSizes(_ c: PostgresConnection) throws -> [(workplace: Int64, employees: Int)] {
        try c.query("""
            SELECT workplace_id, count(*) FROM payrun.employees WHERE left_on IS NULL OR left_on >= '2026-10-01'
             GROUP BY 1 ORDER BY 2 DESC, 1
            """).map { (try $0.int64(at: 0), Int(try $0.int64(at: 1))) }
    }

    /// A chunk size that splits the largest workplace (the tests check that small ones then share jobs).
    static func chunkMax(_ c: PostgresConnection) throws -> Int {
        let sizes = try workplaceSizes(c).map(\.employees)
        let largest = sizes.first ?? 0
        return Swift.max(largest / 2, 2)
    }

    static func planAll(_ c: PostgresConnection, chunkMax: Int) throws -> RunPlanner.PackedOutcome {
        let tenant = try tenant(c)
        let runIds = try c.query("SELECT id FROM payrun.payroll_runs ORDER BY id").map { try $0.int64(at: 0) }
        return try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try RunPlanner.planMany(tenantId: tenant, runIds: runIds, chunkEmployeesMax: chunkMax, on: c)
        }
    }

    static func requests(_ parts: [RunPlanner.Part]) -> [ChunkProcessor.PartRequest] {
        parts.map { ChunkProcessor.PartRequest(runId: $0.runId, version: $0.version, chunkNo: $0.chunkNo, from: $0.from, to: $0.to) }
    }

    static func process(_ c: PostgresConnection, _ parts: [RunPlanner.Part]) throws -> ChunkProcessor.PartsOutcome {
        let tenant = try tenant(c)
        return try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try ChunkProcessor.processParts(tenantId: tenant, parts: requests(parts), on: c)
        }
    }

    /// Every stored column of every payslip but run id, `revision` and `computed_at`, keyed by workplace and employee.
    static func storedRows(_ c: PostgresConnection) throws -> [String] {
        try c.query("""
            SELECT concat_ws('|', r.workplace_id, p.employee_id, p.run_version, p.rule_set, encode(p.input_digest, 'hex'),
                             p.worked_minutes, p.regular_minutes, p.overtime_minutes, p.part_time_excess_minutes, p.night_minutes,
                             p.holiday_minutes, p.holiday_over8_minutes, p.weekly_allowance_minutes, p.paid_holiday_minutes,
                             p.gross_won, p.non_taxable_won, p.taxable_won, p.total_deductions_won, p.net_won,
                             p.earnings::text, p.deductions::text, p.warnings::text, p.error::text)
              FROM payrun.payslips p JOIN payrun.payroll_runs r ON r.tenant_id = p.tenant_id AND r.id = p.run_id
             ORDER BY r.workplace_id, p.employee_id
            """).map { try $0.string(at: 0) }
    }

    /// Each run's outcome, keyed by workplace.
    static func runRows(_ c: PostgresConnection) throws -> [String] {
        try c.query("""
            SELECT concat_ws('|', workplace_id, status, employees_total, employees_done, employees_failed, warnings_count,
                             chunks_total, chunks_done, gross_won, net_won, total_deductions_won, encode(input_digest, 'hex'))
              FROM payrun.payroll_runs ORDER BY workplace_id
            """).map { try $0.string(at: 0) }
    }

    /// Moves every third employee of the largest workplace to the second largest (a workplace's
    /// ids are then not contiguous, and ranges of two runs interleave), and gives the largest a
    /// company holiday and the second largest a withdrawn national holiday (한글날), so the
    /// workplaces of one packed job have different calendars. Done to both stores alike.
    static func interleave(_ c: PostgresConnection) throws {
        let sizes = try workplaceSizes(c)
        try #require(sizes.count >= 2)
        try c.execute("""
            UPDATE payrun.employees SET workplace_id = $2
             WHERE workplace_id = $1 AND id % 3 = 0
            """, [.int(sizes[0].workplace), .int(sizes[1].workplace)])
        try c.execute("DELETE FROM payrun.workplace_holidays WHERE workplace_id IN ($1, $2)",
                      [.int(sizes[0].workplace), .int(sizes[1].workplace)])
        try c.execute("""
            INSERT INTO payrun.workplace_holidays (tenant_id, workplace_id, holiday_date, observed, kind, name)
            SELECT tenant_id, id, '2026-10-15'::date, true, 'company', '창립기념일' FROM payrun.workplaces WHERE id = $1
            UNION ALL
            SELECT tenant_id, id, '2026-10-09'::date, false, 'public', '한글날' FROM payrun.workplaces WHERE id = $2
            """, [.int(sizes[0].workplace), .int(sizes[1].workplace)])
    }

    @Test("a tenant's month-end is scheduled in one transaction with one plan job for all its runs; scheduling again creates nothing")
    func oneTransactionOnePlanJob() throws {
        let c = try Self.seeded("packed_schedule")
        let workplaces = try Self.count(c, "SELECT count(*) FROM payrun.workplaces")
        try #require(workplaces >= 5)
        let first = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        #expect(first.count == Int(workplaces) && first.allSatisfy(\.created))
        let planJobs = Set(first.compactMap(\.planJobId))
        #expect(planJobs.count == 1)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.jobs WHERE kind = 'run.plan'") == 1)
        let payload = try c.queryOne("SELECT payload::text FROM payrun.jobs WHERE kind = 'run.plan'")?.string(at: 0)
        #expect(payload == "{\"runIds\": [\(first.map(\.runId).sorted().map { String($0) }.joined(separator: ", "))]}")
        // Pay dates follow each workplace's pay day.
        #expect(try Self.count(c, "SELECT count(DISTINCT pay_date) FROM payrun.payroll_runs") > 1)

        let again = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        #expect(again.count == first.count && again.allSatisfy { !$0.created && $0.planJobId == nil })
        #expect(again.map(\.runId) == first.map(\.runId))
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.payroll_runs") == workplaces)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.jobs") == 1)
        // One workplace alone (`--workplace`) finds its run too.
        let one = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, workplaceId: first[2].workplaceId, on: c)
        #expect(one.count == 1 && !one[0].created && one[0].runId == first[2].runId)
    }

    @Test("planning packs the runs' parts into jobs of at most the maximum: every employee in exactly one part, big runs split, small runs share")
    func planningPacksParts() throws {
        let c = try Self.seeded("packed_plan")
        try Self.interleave(c)
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let chunkMax = try Self.chunkMax(c)
        let outcome = try Self.planAll(c, chunkMax: chunkMax)
        let runs = try Self.count(c, "SELECT count(*) FROM payrun.payroll_runs")
        #expect(outcome.plannedRunIds.count == Int(runs) && outcome.skipped.isEmpty)

        // Jobs: at most chunkMax employees; some hold several runs, some run spans several jobs.
        #expect(outcome.jobs.allSatisfy { $0.reduce(0) { $0 + $1.employees } <= chunkMax })
        #expect(outcome.jobs.contains { Set($0.map(\.runId)).count > 1 })
        let jobOfPart = outcome.jobs.indices.flatMap { j in outcome.jobs[j].map { (runId: $0.runId, job: j) } }
        #expect(Dictionary(grouping: jobOfPart, by: \.runId).values.contains { Set($0.map(\.job)).count > 1 })

        // The queue holds exactly these jobs, each listing its parts.
        let queued = try c.query("SELECT payload::text FROM payrun.jobs WHERE kind = 'run.chunk' ORDER BY id").map { row -> Int in
            guard case .object(let o) = try JSONParser.parse(try row.string(at: 0)), case .array(let items)? = o["parts"] else { return -1 }
            return items.count
        }
        #expect(queued == outcome.jobs.map(\.count))

        // Parts = run_chunks rows; each run's parts numbered 0…n-1 and covering its employees exactly once.
        let parts = outcome.jobs.flatMap { $0 }
        let rows = try c.query("""
            SELECT run_id, chunk_no, employee_id_from, employee_id_to, employees_planned FROM payrun.run_chunks ORDER BY run_id, chunk_no
            """).map { "\(try $0.int64(at: 0))/\(try $0.int32(at: 1))/\(try $0.int64(at: 2))/\(try $0.int64(at: 3))/\(try $0.int32(at: 4))" }
        #expect(rows == parts.sorted { ($0.runId, $0.chunkNo) < ($1.runId, $1.chunkNo) }
            .map { "\($0.runId)/\($0.chunkNo)/\($0.from)/\($0.to)/\($0.employees)" })
        let byRun = Dictionary(grouping: parts, by: \.runId)
        var covered = 0
        for (runId, runParts) in byRun {
            #expect(runParts.map(\.chunkNo).sorted() == (0..<Int32(runParts.count)).map { $0 })
            let employees = try c.query("""
                SELECT e.id FROM payrun.employees e JOIN payrun.payroll_runs r ON r.tenant_id = e.tenant_id AND r.workplace_id = e.workplace_id
                 WHERE r.id = $1 AND (e.hired_on IS NULL OR e.hired_on <= r.period_end) AND (e.left_on IS NULL OR e.left_on >= r.period_start)
                """, [.int(runId)]).map { try $0.int64(at: 0) }
            for id in employees {
                #expect(runParts.filter { $0.from <= id && id <= $0.to }.count == 1, "employee \(id) of run \(runId)")
            }
            #expect(runParts.reduce(0) { $0 + $1.employees } == employees.count)
            covered += employees.count
        }
        #expect(covered == outcome.employees)
        #expect(try Self.count(c, "SELECT sum(employees_total) FROM payrun.payroll_runs") == Int64(covered))
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.payroll_runs WHERE status = 'calculating'") == runs)

        // Planning again plans nothing.
        let again = try Self.planAll(c, chunkMax: chunkMax)
        #expect(again.plannedRunIds.isEmpty && again.jobs.isEmpty && again.skipped.count == Int(runs))
    }

    @Test("a packed month-end stores, employee by employee, the payslips and run digests of the same store computed run by run; a rerun changes nothing")
    func packedEqualsRunByRun() throws {
        let packed = try Self.seeded("packed_equal_a")
        let single = try Self.seeded("packed_equal_b")
        try Self.interleave(packed)
        try Self.interleave(single)
        let chunkMax = try Self.chunkMax(packed)
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: packed)
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: single)

        // Packed, the jobs in reverse order.
        let outcome = try Self.planAll(packed, chunkMax: chunkMax)
        var finalized: [Int64] = []
        for job in outcome.jobs.reversed() { finalized += try Self.process(packed, job).finalizedRunIds }
        #expect(finalized.sorted() == outcome.plannedRunIds)

        // Run by run, chunk by chunk (RunPlanner.plan, ChunkProcessor.process).
        let tenant = try Self.tenant(single)
        for runId in try single.query("SELECT id FROM payrun.payroll_runs ORDER BY id").map({ try $0.int64(at: 0) }) {
            try single.transaction { c in
                try TenantScope.set(tenant, on: c)
                _ = try RunPlanner.plan(tenantId: tenant, runId: runId, chunkEmployeesMax: chunkMax, on: c)
            }
        }
        for row in try single.query("SELECT payload::text FROM payrun.jobs WHERE kind = 'run.chunk' ORDER BY id") {
            guard case .object(let o) = try JSONParser.parse(try row.string(at: 0)) else { Issue.record("payload"); return }
            try single.transaction { c in
                try TenantScope.set(tenant, on: c)
                _ = try ChunkProcessor.process(
                    tenantId: tenant, runId: RunLifecycleTests.int(o, "runId"), version: Int32(RunLifecycleTests.int(o, "version")),
                    chunkNo: Int32(RunLifecycleTests.int(o, "chunk")), from: RunLifecycleTests.int(o, "from"),
                    to: RunLifecycleTests.int(o, "to"), on: c)
            }
        }

        let packedRows = try Self.storedRows(packed)
        #expect(packedRows.count == outcome.employees && packedRows.count > 250)
        #expect(packedRows == (try Self.storedRows(single)))
        let packedRuns = try Self.runRows(packed)
        #expect(packedRuns == (try Self.runRows(single)))
        #expect(try Self.count(packed, "SELECT count(*) FROM payrun.payroll_runs WHERE status NOT IN ('calculated', 'calculated_with_errors')") == 0)
        // Every part has its phase timings and its own shift count.
        #expect(try Self.count(packed, "SELECT count(*) FROM payrun.run_chunks WHERE finished_at IS NULL OR load_us IS NULL OR finish_us IS NULL") == 0)
        #expect(try Self.count(packed, "SELECT sum(shifts_loaded) FROM payrun.run_chunks")
                == (try Self.count(single, "SELECT sum(shifts_loaded) FROM payrun.run_chunks")))

        // A rerun of a packed job (the replacement path) stores the same payslips and digests.
        let shared = try #require(outcome.jobs.first { Set($0.map(\.runId)).count > 1 })
        let rerun = try Self.process(packed, shared)
        #expect(rerun.partsDone == shared.count && rerun.skipped.isEmpty)
        #expect(try Self.storedRows(packed) == packedRows)
        #expect(try Self.runRows(packed) == packedRuns)
        #expect(try Self.count(packed, "SELECT count(*) FROM payrun.payslips WHERE revision = 2") == Int64(shared.reduce(0) { $0 + $1.employees }))
    }

    @Test("in a packed job, the parts of a cancelled and of a replanned run are skipped while the other runs finish")
    func closedAndReplannedPartsAreSkipped() throws {
        let c = try Self.seeded("packed_skip")
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let outcome = try Self.planAll(c, chunkMax: 2_000)
        try #require(outcome.jobs.count == 1)
        let job = outcome.jobs[0]
        let runIds = Array(Set(job.map(\.runId))).sorted()
        try #require(runIds.count >= 3)
        let cancelled = runIds[0], replanned = runIds[1]
        try c.execute("UPDATE payrun.payroll_runs SET status = 'cancelled', cancelled_at = now() WHERE id = $1", [.int(cancelled)])
        try c.execute("UPDATE payrun.payroll_runs SET version = version + 1 WHERE id = $1", [.int(replanned)])

        let result = try Self.process(c, job)
        #expect(Set(result.skipped.map(\.runId)) == [cancelled, replanned])
        #expect(result.skipped.first { $0.runId == cancelled }?.reason == "run \(cancelled) is cancelled")
        #expect(result.skipped.first { $0.runId == replanned }?.reason.contains("the job was planned for version") == true)
        #expect(result.partsDone == job.count - result.skipped.count)
        #expect(Set(result.finalizedRunIds) == Set(runIds).subtracting([cancelled, replanned]))
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.payslips WHERE run_id IN (\(cancelled), \(replanned))") == 0)
        let others = runIds.dropFirst(2).map { String($0) }.joined(separator: ",")
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.payroll_runs WHERE id IN (\(others)) AND status LIKE 'calculated%'")
                == Int64(runIds.count - 2))
        #expect(try c.queryOne("SELECT status FROM payrun.payroll_runs WHERE id = $1", [.int(replanned)])?.string(at: 0) == "calculating")
    }
}
