import PayrollRules
import PostgresClient

/// Creates month-end runs and their planning jobs, idempotently: runs are inserted with
/// `ON CONFLICT DO NOTHING` against the unique open period (`payroll_runs_one_per_period`), and only
/// the transaction that inserted them enqueues their planning, in the same commit. Scheduling
/// the same month twice (by hand, by two workers' schedulers, after a crash) finds the runs and
/// enqueues nothing.
///
/// A month-end is scheduled per tenant: all of a tenant's runs of the period in one transaction
/// and **one** `run.plan` job `{"runIds": […]}` for the runs it created (the planner packs their
/// small chunks into shared chunk jobs, `RunPlanner.planMany`).
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

    /// Schedules month `year-month` for every matching workplace: each tenant in one transaction
    /// with one plan job for the runs it created.
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
            let requests = workplaces.map { (workplaceId: $0.0, payDate: payDate ?? defaultPayDate(periodEnd: periodEnd, payDayOfMonth: $0.1)) }
            if requests.isEmpty { continue }
            scheduled += try connection.transaction { c in
                try TenantScope.set(tenant, on: c)
                return try createRuns(tenantId: tenant, periodStart: periodStart, periodEnd: periodEnd, runs: requests, on: c)
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
        let scheduled = try createRuns(tenantId: tenantId, periodStart: periodStart, periodEnd: periodEnd,
                                       runs: [(workplaceId, payDate)], on: connection)
        guard let one = scheduled.first else {
            throw PayrollStoreError(.notFound, "workplace \(workplaceId) does not exist in tenant \(tenantId)")
        }
        return one
    }

    /// Inserts the runs of `runs` (workplace, pay date) whose period has none, with one statement in
    /// workplace order (concurrent schedulers wait on each other's inserts instead of deadlocking),
    /// and enqueues one planning job for the runs created; in the caller's transaction (tenant set).
    /// Returns one entry per existing workplace, in workplace order.
    public static func createRuns(tenantId: Int64, periodStart: LocalDate, periodEnd: LocalDate,
                                  runs: [(workplaceId: Int64, payDate: LocalDate)],
                                  on connection: PostgresConnection) throws -> [Scheduled] {
        let created = try insertRuns(tenantId: tenantId, periodStart: periodStart, periodEnd: periodEnd, runs: runs, on: connection)
        let planJobId = try enqueuePlan(tenantId: tenantId, runIds: created.values.sorted(), on: connection)
        let rows = try connection.query("""
            SELECT workplace_id, id FROM payrun.payroll_runs
             WHERE tenant_id = $1 AND workplace_id = ANY($2) AND period_start = $3 AND period_end = $4 AND status <> 'cancelled'
             ORDER BY workplace_id
            """, [.int(tenantId), .int64Array(runs.map(\.workplaceId)), .date(DateConversion.postgresDate(periodStart)),
                  .date(DateConversion.postgresDate(periodEnd))])
        return try rows.map { row in
            let workplace = try row.int64(at: 0), runId = try row.int64(at: 1)
            let isNew = created[workplace] == runId
            return Scheduled(tenantId: tenantId, workplaceId: workplace, runId: runId, created: isNew, planJobId: isNew ? planJobId : nil)
        }
    }

    /// Inserts the runs whose period has none (no planning job); returns workplace → new run id.
    static func insertRuns(tenantId: Int64, periodStart: LocalDate, periodEnd: LocalDate,
                           runs: [(workplaceId: Int64, payDate: LocalDate)],
                           on connection: PostgresConnection) throws -> [Int64: Int64] {
        if runs.isEmpty { return [:] }
        let inserted = try connection.query("""
            INSERT INTO payrun.payroll_runs (tenant_id, workplace_id, period_start, period_end, pay_date, size_class)
            SELECT w.tenant_id, w.id, $3, $4, u.pay_date, w.size_class
              FROM unnest($2::bigint[], $5::date[]) AS u(workplace_id, pay_date)
              JOIN payrun.workplaces w ON w.tenant_id = $1 AND w.id = u.workplace_id
             ORDER BY w.id
            ON CONFLICT (tenant_id, workplace_id, period_start, period_end) WHERE status <> 'cancelled' DO NOTHING
            RETURNING workplace_id, id
            """, [.int(tenantId), .int64Array(runs.map(\.workplaceId)), .date(DateConversion.postgresDate(periodStart)),
                  .date(DateConversion.postgresDate(periodEnd)), .textArray(runs.map { $0.payDate.description })])
        var created: [Int64: Int64] = [:]
        for row in inserted { created[try row.int64(at: 0)] = try row.int64(at: 1) }
        return created
    }

    /// Enqueues one `run.plan` job `{"runIds": […]}` for `runIds` (none if empty); dedup key
    /// `run.plan:<tenant>:<lowest run id>` (a run is created once, so its id starts one plan job).
    @discardableResult
    static func enqueuePlan(tenantId: Int64, runIds: [Int64], on connection: PostgresConnection) throws -> Int64? {
        guard let first = runIds.min() else { return nil }
        let payload = "{\"runIds\":[\(runIds.sorted().map { String($0) }.joined(separator: ","))]}"
        return try JobSQL.enqueue(kind: PayrollJobKind.plan, tenantId: tenantId, payload: payload,
                                  dedupKey: "\(PayrollJobKind.plan):\(tenantId):\(first)", priority: JobSQL.planPriority,
                                  on: connection)
    }
}
