import Foundation
import PayrollRules
import Synchronization
import PostgresClient
import Testing
@testable import PayrollStore

@Suite("Run scheduling, planning, finalization and recalculation")
struct RunLifecycleTests {
    static let tenant = PayrollDataFixture.tenant

    /// Fixture data without its run; returns the connection.
    static func seededWithoutRun(_ label: String) throws -> PostgresConnection {
        let c = try PayrollDataFixture.migrated(label)
        try PayrollDataFixture.seed(c)
        try c.execute("DELETE FROM payrun.run_chunks")
        try c.execute("DELETE FROM payrun.payroll_runs")
        return c
    }

    static func count(_ c: PostgresConnection, _ sql: String) throws -> Int64 {
        try c.queryOne(sql)?.int64(at: 0) ?? -1
    }

    /// The payloads of pending jobs of `kind`, parsed.
    static func pendingPayloads(_ c: PostgresConnection, kind: String) throws -> [JSONObject] {
        try c.query("SELECT payload::text FROM payrun.jobs WHERE kind = $1 AND state = 'pending' ORDER BY id", [.text(kind)]).map {
            guard case .object(let o) = try JSONParser.parse(try $0.string(at: 0)) else { throw PayrollStoreError(.invalidRequest, "payload") }
            return o
        }
    }

    static func int(_ o: JSONObject, _ key: String) -> Int64 {
        if case .number(let n)? = o[key], let v = n.int64 { return v }
        return -1
    }

    @Test("scheduling the same month twice (command and periodic scheduler) creates one run and one plan job")
    func duplicateSchedulingCreatesOneRunAndOneJob() throws {
        let c = try Self.seededWithoutRun("schedule_twice")
        let first = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let second = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, tenantId: Self.tenant, on: c)
        #expect(first.count == 1 && first[0].created && first[0].planJobId != nil)
        #expect(second.count == 1 && !second[0].created && second[0].runId == first[0].runId)
        try c.execute("UPDATE payrun.workplaces SET month_end_day = 3, created_at = '2026-09-01'")
        let ticked = try MonthEndScheduler.tick(today: LocalDate(year: 2026, month: 11, day: 5)!, on: c)
        // October already exists; September is due too (catch-up) and is created once.
        #expect(ticked.map(\.runId).contains(first[0].runId) == false)
        #expect(ticked.count == 1)
        #expect(try MonthEndScheduler.tick(today: LocalDate(year: 2026, month: 11, day: 6)!, on: c).isEmpty)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.payroll_runs WHERE period_start = '2026-10-01'") == 1)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.jobs WHERE kind = 'run.plan'") == 2)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.payroll_runs") == 2)
        let pay = try c.queryOne("SELECT pay_date::text FROM payrun.payroll_runs WHERE period_start = '2026-10-01'")?.string(at: 0)
        #expect(pay == "2026-11-10")
    }

    @Test("the periodic scheduler creates exactly the due runs of many workplaces (month-end day, catch-up, creation date), once, with one plan job")
    func tickCreatesDueRunsOfManyWorkplaces() throws {
        let c = try Self.seededWithoutRun("tick_many")
        try c.execute("UPDATE payrun.workplaces SET month_end_day = NULL")
        // (id, month_end_day, created_at): today is 2026-11-05, the catch-up covers Oct, Sep, Aug.
        try c.execute("""
            INSERT INTO payrun.workplaces (tenant_id, id, name, size_class, month_end_day, pay_day_of_month, created_at) VALUES
              ($1, 101, 'day 1, old', 'five_or_more', 1, 25, '2026-01-01 09:00+09'),
              ($1, 102, 'day 10, old', 'under_five', 10, NULL, '2026-01-01 09:00+09'),
              ($1, 103, 'day 1, new in September', 'five_or_more', 1, NULL, '2026-09-15 09:00+09'),
              ($1, 104, 'day 6, old', 'five_or_more', 6, NULL, '2026-01-01 09:00+09'),
              ($1, 105, 'not scheduled', 'five_or_more', NULL, NULL, '2026-01-01 09:00+09')
            """, [.int(Self.tenant)])
        // October of workplace 101 exists already (scheduled by hand).
        let byHand = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, tenantId: Self.tenant, workplaceId: 101, on: c)
        #expect(byHand.count == 1 && byHand[0].created)
        let ticked = try MonthEndScheduler.tick(today: LocalDate(year: 2026, month: 11, day: 5)!, on: c)
        let created = Set(try c.query("""
            SELECT workplace_id || ':' || period_start::text || ':' || pay_date::text FROM payrun.payroll_runs WHERE id = ANY($1)
            """, [.int64Array(ticked.map(\.runId))]).map { try $0.string(at: 0) })
        #expect(created == [
            "101:2026-09-01:2026-10-25", "101:2026-08-01:2026-09-25",   // October existed
            "102:2026-09-01:2026-10-10", "102:2026-08-01:2026-09-10",   // October due on 11-10
            "103:2026-10-01:2026-11-10", "103:2026-09-01:2026-10-10",   // August before it existed
            "104:2026-09-01:2026-10-10", "104:2026-08-01:2026-09-10",   // October due on 11-06
        ])
        #expect(ticked.count == 8 && ticked.allSatisfy { $0.created && $0.tenantId == Self.tenant })
        #expect(Set(ticked.compactMap(\.planJobId)).count == 1 && ticked.allSatisfy { $0.planJobId != nil })
        let plans = try Self.pendingPayloads(c, kind: PayrollJobKind.plan)
        #expect(plans.count == 2)  // the hand-scheduled October and the tick's runs
        if case .array(let ids)? = plans.last?["runIds"] {
            #expect(Set(ids.compactMap { if case .number(let n) = $0 { return n.int64 } else { return nil } }) == Set(ticked.map(\.runId)))
        } else {
            Issue.record("the tick's plan job has no runIds")
        }
        // The next day October of 104 is due; nothing else is created again.
        let nextDay = try MonthEndScheduler.tick(today: LocalDate(year: 2026, month: 11, day: 6)!, on: c)
        #expect(nextDay.map(\.workplaceId) == [104])
        #expect(try MonthEndScheduler.tick(today: LocalDate(year: 2026, month: 11, day: 6)!, on: c).isEmpty)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.payroll_runs") == 10)
    }

    @Test("a planned run is computed chunk by chunk in any order; the last chunk finalizes it with totals and digest")
    func planChunksFinalize() throws {
        let c = try Self.seededWithoutRun("plan_chunks")
        let runId = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)[0].runId
        let planned = try c.transaction { c in
            try TenantScope.set(Self.tenant, on: c)
            return try RunPlanner.plan(tenantId: Self.tenant, runId: runId, chunkEmployeesMax: 1, on: c)
        }
        #expect(planned == .planned(chunks: 2, employees: 2))
        let again = try c.transaction { c in try RunPlanner.plan(tenantId: Self.tenant, runId: runId, chunkEmployeesMax: 1, on: c) }
        #expect(again == .skipped(reason: "run \(runId) is already calculating"))
        let chunks = try Self.pendingPayloads(c, kind: PayrollJobKind.chunk)
        #expect(chunks.count == 2)
        var finalized: [Bool] = []
        for payload in chunks.reversed() {
            let outcome = try c.transaction { c in
                try TenantScope.set(Self.tenant, on: c)
                return try ChunkProcessor.process(
                    tenantId: Self.tenant, runId: Self.int(payload, "runId"), version: Int32(Self.int(payload, "version")),
                    chunkNo: Int32(Self.int(payload, "chunk")), from: Self.int(payload, "from"), to: Self.int(payload, "to"),
                    on: c)
            }
            finalized.append(outcome.finalizedRun)
        }
        #expect(finalized == [false, true])
        // Each chunk's phase timings and shift count are stored with it (0010).
        let phases = try c.queryOne("""
            SELECT count(*) FILTER (WHERE load_us > 0 AND compute_us >= 0 AND write_us > 0 AND finish_us > 0),
                   sum(shifts_loaded)::bigint
              FROM payrun.run_chunks WHERE run_id = $1
            """, [.int(runId)])
        let expectedShifts = [PayrollDataFixture.hourly, PayrollDataFixture.monthly]
            .map { PayrollDataFixture.expectedInput($0).shifts.count }.reduce(0, +)
        #expect(try phases?.int64(at: 0) == 2)
        #expect(try phases?.int64(at: 1) == Int64(expectedShifts))
        guard let run = try PayrollRun.fetch(tenantId: Self.tenant, runId: runId, on: c) else { Issue.record("run"); return }
        #expect(run.status == .calculated && run.chunksDone == 2 && run.employeesDone == 2)
        let slips = try [PayrollDataFixture.hourly, PayrollDataFixture.monthly].map { try PayrollCalculator.calculate(PayrollDataFixture.expectedInput($0)) }
        #expect(run.grossWon == slips.map(\.gross).reduce(0, +))
        #expect(run.netWon == slips.map(\.net).reduce(0, +))
        #expect(Int(run.warningsCount) == slips.map(\.warnings.count).reduce(0, +))
        // Digest = SHA-256 over chunk digests in chunk order; each chunk = SHA-256(employee id ‖ input digest).
        var chunkDigests: [UInt8] = []
        for employee in [PayrollDataFixture.hourly, PayrollDataFixture.monthly] {
            var bytes: [UInt8] = []
            withUnsafeBytes(of: employee.bigEndian) { bytes.append(contentsOf: $0) }
            bytes += InputDigest.digest(try PayrollDataFixture.expectedInput(employee).validated())
            chunkDigests += SHA256.digest(bytes)
        }
        #expect(run.inputDigestHex == SHA256.hexDigest(chunkDigests))
    }

    @Test("recalculation replaces one payslip in an open run; on an approved run it records a pending correction and changes nothing")
    func recalculationOpenAndApproved() throws {
        let c = try Self.seededWithoutRun("recalc")
        let runId = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)[0].runId
        try c.transaction { c in
            try TenantScope.set(Self.tenant, on: c)
            _ = try RunPlanner.plan(tenantId: Self.tenant, runId: runId, on: c)
            _ = try ChunkProcessor.process(tenantId: Self.tenant, runId: runId, version: 1, chunkNo: 0,
                                           from: PayrollDataFixture.hourly, to: PayrollDataFixture.monthly, on: c)
        }
        // Edit a shift (2 more hours on 10-22) and recalculate the hourly employee.
        try c.execute("UPDATE payrun.shifts SET ends_at = ends_at + interval '2 hours' WHERE employee_id = $1 AND starts_at = '2026-10-21T09:00:00+09:00'",
                      [.int(PayrollDataFixture.hourly)])
        let outcome = try c.transaction { c in
            try TenantScope.set(Self.tenant, on: c)
            return try Recalculation.run(tenantId: Self.tenant, employeeId: PayrollDataFixture.hourly,
                                         periodStart: PayrollDataFixture.periodStart, on: c)
        }
        guard case .replaced(let replacedRun, let result) = outcome else { Issue.record("expected replaced, got \(outcome)"); return }
        #expect(replacedRun == runId)
        var edited = PayrollDataFixture.expectedInput(PayrollDataFixture.hourly)
        if let i = edited.shifts.firstIndex(where: { $0.start == KoreaMinute(date: LocalDate(year: 2026, month: 10, day: 21)!, minuteOfDay: 540) }) {
            edited.shifts[i].end = edited.shifts[i].end.adding(minutes: 120)
        }
        let expected = try PayrollCalculator.calculate(edited)
        #expect(try result.get() == expected)
        let stored = try StoredPayslip.fetch(tenantId: Self.tenant, runId: runId, employeeId: PayrollDataFixture.hourly, on: c)
        #expect(stored.count == 1 && stored.first?.revision == 2)
        #expect(try stored.first?.result.get() == expected)
        let before = try PayrollRun.fetch(tenantId: Self.tenant, runId: runId, on: c)
        #expect(before?.status == .calculated)
        // Totals moved by the difference; the digest is stale until approval recomputes it.
        let monthly = try PayrollCalculator.calculate(PayrollDataFixture.expectedInput(PayrollDataFixture.monthly))
        #expect(before?.grossWon == expected.gross + monthly.gross)
        #expect(before?.netWon == expected.net + monthly.net)
        #expect(before?.employeesDone == 2)
        #expect(before?.inputDigestHex == nil)

        // Approve, then ask again: a pending correction, payslip untouched.
        let approved = try c.transaction { c in try RunApproval.approve(tenantId: Self.tenant, runId: runId, approvedBy: "test", on: c) }
        #expect(approved.status == .approved && approved.inputDigestHex?.count == 64)
        #expect(approved.grossWon == expected.gross + monthly.gross)
        try c.execute("UPDATE payrun.shifts SET ends_at = ends_at + interval '1 hour' WHERE employee_id = $1 AND starts_at = '2026-10-22T09:00:00+09:00'",
                      [.int(PayrollDataFixture.hourly)])
        let locked = try c.transaction { c in
            try Recalculation.run(tenantId: Self.tenant, employeeId: PayrollDataFixture.hourly, periodStart: PayrollDataFixture.periodStart,
                                  reason: "late shift edit", on: c)
        }
        guard case .pendingCorrection(let correctionRun) = locked else { Issue.record("expected pending correction, got \(locked)"); return }
        #expect(correctionRun == runId)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.pending_corrections WHERE resolved_at IS NULL AND reason = 'late shift edit'") == 1)
        let after = try StoredPayslip.fetch(tenantId: Self.tenant, runId: runId, employeeId: PayrollDataFixture.hourly, on: c)
        #expect(after.first?.revision == 2)
        #expect(try after.first?.result.get() == expected)
        // The SQL entry point agrees: NULL (no job) and the same open correction.
        let viaSQL = try c.transaction { c -> Bool in
            try TenantScope.set(Self.tenant, on: c)
            return try c.queryOne("SELECT payrun.enqueue_recalculation($1, $2, '2026-10-01') IS NULL",
                                  [.int(Self.tenant), .int(PayrollDataFixture.hourly)])?.bool(at: 0) ?? false
        }
        #expect(viaSQL)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.pending_corrections") == 1)
        // Another tenant's employee named in a recalculation is reported, not skipped.
        let foreign = try c.transaction { c in
            try Recalculation.run(tenantId: PayrollDataFixture.otherTenant, employeeId: PayrollDataFixture.hourly,
                                  periodStart: PayrollDataFixture.periodStart, on: c)
        }
        guard case .employeeNotFound = foreign else { Issue.record("expected employeeNotFound, got \(foreign)"); return }
    }
}

@Suite("Concurrent scheduling")
struct ConcurrentSchedulingTests {
    @Test("four connections scheduling the same month at once create one run and one plan job")
    func concurrentSchedulingCreatesOne() throws {
        let c = try RunLifecycleTests.seededWithoutRun("schedule_race")
        let url = c.connectionString
        let results = Mutex<[Bool]>([])
        let errors = Mutex<[String]>([])
        let threads = (0..<4).map { _ in
            Thread {
                do {
                    let own = try PostgresConnection(url: url)
                    defer { own.close() }
                    let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: own)
                    results.withLock { $0.append(contentsOf: scheduled.map(\.created)) }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }
        threads.forEach { $0.start() }
        #expect(waitFor(seconds: 30) { results.withLock { $0.count } + errors.withLock { $0.count } == 4 })
        #expect(errors.withLock { $0 } == [])
        #expect(results.withLock { $0.filter { $0 }.count } == 1)
        #expect(try RunLifecycleTests.count(c, "SELECT count(*) FROM payrun.payroll_runs") == 1)
        #expect(try RunLifecycleTests.count(c, "SELECT count(*) FROM payrun.jobs WHERE kind = 'run.plan'") == 1)
    }

    func waitFor(seconds: Int, _ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<(seconds * 50) {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }
}
