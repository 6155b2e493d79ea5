import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// `RunPlanner.planMany`'s statements: the employees' ids read without a server-side sort (each
/// workplace's ids put in order by the planner when they do not arrive ascending), and the chunk
/// jobs enqueued with one statement.
@Suite("Planning statements")
struct PlanningStatementsTests {
    /// The parts `planMany` must give each run: its employees in the period, ascending, split into
    /// ranges of at most `chunkMax` (as `plan` splits one run).
    static func expectedParts(_ c: PostgresConnection, chunkMax: Int) throws -> [String] {
        let rows = try c.query("""
            SELECT r.id, e.id FROM payrun.payroll_runs r
              JOIN payrun.employees e ON e.tenant_id = r.tenant_id AND e.workplace_id = r.workplace_id
             WHERE (e.hired_on IS NULL OR e.hired_on <= r.period_end) AND (e.left_on IS NULL OR e.left_on >= r.period_start)
             ORDER BY r.id, e.id
            """).map { (try $0.int64(at: 0), try $0.int64(at: 1)) }
        var parts: [String] = []
        for (runId, group) in Dictionary(grouping: rows, by: \.0).sorted(by: { $0.key < $1.key }) {
            let ids = group.map(\.1)
            var i = 0, n = 0
            while i < ids.count {
                let upper = min(i + chunkMax, ids.count)
                parts.append("\(runId)/\(n)/\(ids[i])/\(ids[upper - 1])/\(upper - i)")
                i = upper
                n += 1
            }
        }
        return parts
    }

    static func storedParts(_ c: PostgresConnection) throws -> [String] {
        try c.query("""
            SELECT run_id, chunk_no, employee_id_from, employee_id_to, employees_planned FROM payrun.run_chunks ORDER BY run_id, chunk_no
            """).map { "\(try $0.int64(at: 0))/\(try $0.int32(at: 1))/\(try $0.int64(at: 2))/\(try $0.int64(at: 3))/\(try $0.int32(at: 4))" }
    }

    @Test("ids that come back out of order (a sequential scan of rewritten rows) are planned as ascending ranges all the same")
    func idsOutOfOrderArePlannedAscending() throws {
        let c = try PackedMonthEndTests.seeded("plan_unsorted")
        try PackedMonthEndTests.interleave(c)
        // Rewrite the lower half of every workplace's employees: their new row versions lie after the
        // higher ids in the heap, so a sequential scan returns each workplace's ids out of order.
        try c.execute("""
            UPDATE payrun.employees e SET name = e.name
              FROM (SELECT workplace_id, percentile_disc(0.5) WITHIN GROUP (ORDER BY id) AS middle
                      FROM payrun.employees GROUP BY workplace_id) m
             WHERE e.workplace_id = m.workplace_id AND e.id < m.middle
            """)
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let chunkMax = try PackedMonthEndTests.chunkMax(c)
        let tenant = try PackedMonthEndTests.tenant(c)
        let runIds = try c.query("SELECT id FROM payrun.payroll_runs ORDER BY id").map { try $0.int64(at: 0) }
        let (outcome, scanned) = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            try c.execute("SET LOCAL enable_indexscan = off")
            try c.execute("SET LOCAL enable_bitmapscan = off")
            // The order the planner's read now sees: some workplace's ids descend somewhere.
            let scanned = try c.query("SELECT workplace_id, id FROM payrun.employees WHERE tenant_id = $1", [.int(tenant)])
                .map { (try $0.int64(at: 0), try $0.int64(at: 1)) }
            let outcome = try RunPlanner.planMany(tenantId: tenant, runIds: runIds, chunkEmployeesMax: chunkMax, on: c)
            return (outcome, scanned)
        }
        var last: [Int64: Int64] = [:]
        var descending = false
        for (workplace, id) in scanned {
            if let previous = last[workplace], previous > id { descending = true }
            last[workplace] = id
        }
        try #require(descending, "the sequential scan should return some workplace's ids out of order")
        #expect(outcome.plannedRunIds.count == runIds.count)
        let expected = try Self.expectedParts(c, chunkMax: chunkMax)
        #expect(try Self.storedParts(c) == expected)
        #expect(outcome.jobs.flatMap { $0 }.sorted { ($0.runId, $0.chunkNo) < ($1.runId, $1.chunkNo) }
            .map { "\($0.runId)/\($0.chunkNo)/\($0.from)/\($0.to)/\($0.employees)" } == expected)
    }

    @Test("planning a tenant's month-end takes six round trips however many chunk jobs it enqueues, the jobs in packing order")
    func fixedRoundTrips() throws {
        let c = try PackedMonthEndTests.seeded("plan_round_trips")
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let tenant = try PackedMonthEndTests.tenant(c)
        let runIds = try c.query("SELECT id FROM payrun.payroll_runs ORDER BY id").map { try $0.int64(at: 0) }
        let chunkMax = try PackedMonthEndTests.chunkMax(c)
        let (outcome, trips) = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            let before = c.roundTrips
            let outcome = try RunPlanner.planMany(tenantId: tenant, runIds: runIds, chunkEmployeesMax: chunkMax, on: c)
            return (outcome, c.roundTrips - before)
        }
        try #require(outcome.jobs.count >= 3)
        let emptyRuns = outcome.plannedRunIds.count - Set(outcome.jobs.flatMap { $0 }.map(\.runId)).count
        // Runs, employees' ids, old parts deleted, parts inserted, chunk jobs, runs updated; one
        // finalization per run without employees.
        #expect(trips == 6 + emptyRuns)
        // The queue holds the jobs in packing order (ids ascending), with their dedup keys, all pending.
        let queued = try c.query("""
            SELECT (payload->'parts'->0->>'runId')::bigint, (payload->'parts'->0->>'chunk')::int, jsonb_array_length(payload->'parts'),
                   dedup_key, state, priority::int
              FROM payrun.jobs WHERE kind = 'run.chunk' ORDER BY id
            """)
        #expect(queued.count == outcome.jobs.count)
        for (row, parts) in zip(queued, outcome.jobs) {
            let head = try #require(parts.first)
            #expect(try row.int64(at: 0) == head.runId && row.int32(at: 1) == head.chunkNo && row.int(at: 2) == parts.count)
            #expect(try row.string(at: 3) == "run.chunk:\(tenant):\(head.runId):v\(head.version):\(head.chunkNo)")
            #expect(try row.string(at: 4) == "pending")
            #expect(try row.int(at: 5) == 100)
        }
    }
}
