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

    /// Creates every due run; returns the runs created by this call.
    public static func tick(today: LocalDate, on connection: PostgresConnection) throws -> [RunScheduler.Scheduled] {
        var created: [RunScheduler.Scheduled] = []
        for tenant in try RunScheduler.tenantIds(nil, on: connection) {
            try connection.transaction { c in
                try TenantScope.set(tenant, on: c)
                var createdHere: [RunScheduler.Scheduled] = []
                let workplaces = try c.query("""
                    SELECT id, month_end_day, pay_day_of_month, (created_at AT TIME ZONE 'Asia/Seoul')::date
                      FROM payrun.workplaces WHERE tenant_id = $1 AND month_end_day IS NOT NULL ORDER BY id
                    """, [.int(tenant)])
                for w in workplaces {
                    let workplaceId = try w.int64(at: 0)
                    let day = Int(try w.decode(Int16.self, at: 1))
                    let payDay = try w.decode(Int16?.self, at: 2).map(Int.init)
                    let createdOn = DateConversion.localDate(try w.date(at: 3))
                    var monthStart = today.firstOfMonth
                    for _ in 0..<catchUpMonths {
                        let periodStart = monthStart.adding(days: -1).firstOfMonth
                        let periodEnd = monthStart.adding(days: -1)
                        let due = monthStart.adding(days: day - 1)
                        monthStart = periodStart
                        guard due <= today, periodEnd >= createdOn else { continue }
                        let inserted = try RunScheduler.insertRuns(
                            tenantId: tenant, periodStart: periodStart, periodEnd: periodEnd,
                            runs: [(workplaceId, RunScheduler.defaultPayDate(periodEnd: periodEnd, payDayOfMonth: payDay))], on: c)
                        if let runId = inserted[workplaceId] {
                            createdHere.append(RunScheduler.Scheduled(tenantId: tenant, workplaceId: workplaceId, runId: runId,
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
