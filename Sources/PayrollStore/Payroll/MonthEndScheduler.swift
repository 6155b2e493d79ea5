import PayrollRules
import PostgresClient

/// The worker's periodic month-end scheduling. A workplace with `month_end_day = D` has its run for
/// month M created on day D of month M+1 (Korea date). Each tick looks at the last
/// `catchUpMonths` months, so a run whose day passed while no worker was up is created at the next
/// tick (but never for months before the workplace existed). Exactly once across any number of
/// workers: runs are created through `RunScheduler.insertRuns` (unique open period), and the
/// transaction whose inserts won enqueues one plan job for all the tenant's runs it created.
public enum MonthEndScheduler {
    public static let catchUpMonths = 3

    /// Creates every due run; returns the runs created by this call (per tenant in workplace order
    /// within each period, the latest period first).
    ///
    /// Per tenant, one transaction: one read of its scheduled workplaces, then one `insertRuns`
    /// statement per period with any due workplace (at most `catchUpMonths`), whatever the number
    /// of workplaces — the leader ticks every minute, and one INSERT per workplace and month had
    /// cost a 1,004-workplace store ≈ 1,000 statements per tick even when every run existed.
    public static func tick(today: LocalDate, on connection: PostgresConnection) throws -> [RunScheduler.Scheduled] {
        var created: [RunScheduler.Scheduled] = []
        for tenant in try RunScheduler.tenantIds(nil, on: connection) {
            try connection.transaction { c in
                try TenantScope.set(tenant, on: c)
                let workplaces = try c.query("""
                    SELECT id, month_end_day, pay_day_of_month, (created_at AT TIME ZONE 'Asia/Seoul')::date
                      FROM payrun.workplaces WHERE tenant_id = $1 AND month_end_day IS NOT NULL ORDER BY id
                    """, [.int(tenant)]).map { w in
                    (id: try w.int64(at: 0), day: Int(try w.decode(Int16.self, at: 1)),
                     payDay: try w.decode(Int16?.self, at: 2).map(Int.init), createdOn: DateConversion.localDate(try w.date(at: 3)))
                }
                var createdHere: [RunScheduler.Scheduled] = []
                var monthStart = today.firstOfMonth
                for _ in 0..<catchUpMonths {
                    let periodStart = monthStart.adding(days: -1).firstOfMonth
                    let periodEnd = monthStart.adding(days: -1)
                    let due = workplaces.filter { monthStart.adding(days: $0.day - 1) <= today && periodEnd >= $0.createdOn }
                    monthStart = periodStart
                    if due.isEmpty { continue }
                    let inserted = try RunScheduler.insertRuns(
                        tenantId: tenant, periodStart: periodStart, periodEnd: periodEnd,
                        runs: due.map { ($0.id, RunScheduler.defaultPayDate(periodEnd: periodEnd, payDayOfMonth: $0.payDay)) }, on: c)
                    for w in due {
                        if let runId = inserted[w.id] {
                            createdHere.append(RunScheduler.Scheduled(tenantId: tenant, workplaceId: w.id, runId: runId,
                                                                      created: true, planJobId: nil))
                        }
                    }
                }
                let planJobId = try RunScheduler.enqueuePlan(tenantId: tenant, runIds: createdHere.map(\.runId), on: c)
                created += createdHere.map { var s = $0; s.planJobId = planJobId; return s }
            }
        }
        return created
    }

    /// Today in Korea.
    public static func koreaToday(on connection: PostgresConnection) throws -> LocalDate {
        guard let row = try connection.queryOne("SELECT (now() AT TIME ZONE 'Asia/Seoul')::date") else {
            throw PayrollStoreError(.invalidState, "no date from the server")
        }
        return DateConversion.localDate(try row.date(at: 0))
    }
}
