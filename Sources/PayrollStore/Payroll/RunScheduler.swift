import PayrollRules
import PostgresClient

/// Creates month-end runs and their planning jobs, idempotently: the run is inserted with
/// `ON CONFLICT DO NOTHING` against the unique open period (`payroll_runs_one_per_period`), and only
/// the transaction that inserted it enqueues its `run.plan` job, in the same commit. Scheduling
/// the same month twice (by hand, by two workers' schedulers, after a crash) finds the run and
/// enqueues nothing.
public enum RunScheduler {
    public struct Scheduled: Sendable, Hashable {
        public var tenantId: Int64
        public var workplaceId: Int64
        public var runId: Int64
        /// False when the run already existed.
        public var created: Bool
        public var planJobId: Int64?
    }

    /// The tenants to act on: `tenantId`, or every tenant (needs a role that sees the tenant
    /// directory: the owner/superuser, or `payrun_worker`).
    public static func tenantIds(_ tenantId: Int64?, on connection: PostgresConnection) throws -> [Int64] {
        if let tenantId { return [tenantId] }
        return try connection.query("SELECT id FROM payrun.tenants ORDER BY id").map { try $0.int64(at: 0) }
    }

    /// Schedules month `year-month` for every matching workplace; each workplace in its own transaction.
    ///
    /// Pay date: `payDate` if given, else the workplace's `pay_day_of_month` in the following month
    /// (clamped to that month's last day), else the 10th of the following month.
    public static func scheduleMonthEnd(year: Int, month: Int, tenantId: Int64? = nil, workplaceId: Int64? = nil,
                                        payDate: LocalDate? = nil, on connection: PostgresConnection) throws -> [Scheduled] {
        guard let periodStart = LocalDate(year: year, month: month, day: 1) else {
            throw PayrollStoreError(.invalidRequest, "no such month \(year)-\(month)")
        }
        let periodEnd = periodStart.adding(days: LocalDate.daysInMonth(year: year, month: month) - 1)
        if let payDate, payDate < periodStart {
            throw PayrollStoreError(.invalidRequest, "pay date \(payDate) is before the period start \(periodStart)")
        }
        var scheduled: [Scheduled] = []
        for tenant in try tenantIds(tenantId, on: connection) {
            let workplaces: [(Int64, Int?)] = try connection.transaction { c in
                try TenantScope.set(tenant, on: c)
                return try c.query(
                    "SELECT id, pay_day_of_month FROM payrun.workplaces WHERE tenant_id = $1 AND ($2::bigint IS NULL OR id = $2) ORDER BY id",
                    [.int(tenant), .int(workplaceId)]
                ).map { (try $0.int64(at: 0), try $0.decode(Int16?.self, at: 1).map(Int.init)) }
            }
            if let workplaceId, workplaces.isEmpty {
                throw PayrollStoreError(.notFound, "workplace \(workplaceId) does not exist in tenant \(tenant)")
            }
            for (workplace, payDay) in workplaces {
                let pay = payDate ?? defaultPayDate(periodEnd: periodEnd, payDayOfMonth: payDay)
                scheduled.append(try connection.transaction { c in
                    try TenantScope.set(tenant, on: c)
                    return try createRun(tenantId: tenant, workplaceId: workplace, periodStart: periodStart,
                                         periodEnd: periodEnd, payDate: pay, on: c)
                })
            }
        }
        return scheduled
    }

    static func defaultPayDate(periodEnd: LocalDate, payDayOfMonth: Int?) -> LocalDate {
        let next = periodEnd.adding(days: 1)
        let day = min(payDayOfMonth ?? 10, LocalDate.daysInMonth(year: next.year, month: next.month))
        return next.adding(days: day - 1)
    }

    /// Inserts the run if the period has none and enqueues its planning job; in the caller's transaction.
    public static func createRun(tenantId: Int64, workplaceId: Int64, periodStart: LocalDate, periodEnd: LocalDate,
                                 payDate: LocalDate, on connection: PostgresConnection) throws -> Scheduled {
        let start = PostgresValue.date(DateConversion.postgresDate(periodStart))
        let end = PostgresValue.date(DateConversion.postgresDate(periodEnd))
        if let inserted = try connection.queryOne("""
            INSERT INTO payrun.payroll_runs (tenant_id, workplace_id, period_start, period_end, pay_date, size_class)
            SELECT w.tenant_id, w.id, $3, $4, $5, w.size_class FROM payrun.workplaces w WHERE w.tenant_id = $1 AND w.id = $2
            ON CONFLICT (tenant_id, workplace_id, period_start, period_end) WHERE status <> 'cancelled' DO NOTHING
            RETURNING id
            """, [.int(tenantId), .int(workplaceId), start, end, .date(DateConversion.postgresDate(payDate))]) {
            let runId = try inserted.int64(at: 0)
            let jobId = try JobSQL.enqueue(kind: PayrollJobKind.plan, tenantId: tenantId, payload: "{\"runId\":\(runId)}",
                                           dedupKey: "\(PayrollJobKind.plan):\(tenantId):\(runId)", priority: JobSQL.planPriority,
                                           on: connection)
            return Scheduled(tenantId: tenantId, workplaceId: workplaceId, runId: runId, created: true, planJobId: jobId)
        }
        guard let existing = try connection.queryOne("""
            SELECT id FROM payrun.payroll_runs
             WHERE tenant_id = $1 AND workplace_id = $2 AND period_start = $3 AND period_end = $4 AND status <> 'cancelled'
            """, [.int(tenantId), .int(workplaceId), start, end])
        else { throw PayrollStoreError(.notFound, "workplace \(workplaceId) does not exist in tenant \(tenantId)") }
        return Scheduled(tenantId: tenantId, workplaceId: workplaceId, runId: try existing.int64(at: 0), created: false, planJobId: nil)
    }
}
