import PayrollRules
import PostgresClient

/// Planning many runs at once (`run.plan` `{"runIds": […]}`, one per tenant and month-end): each
/// run gets its `run_chunks` rows exactly as `plan` would give it (parts of at most
/// `chunkEmployeesMax` employees, contiguous id ranges of that run, numbered 0, 1, … per run), and
/// consecutive parts — in workplace order, then id order — are packed into `run.chunk` jobs of at
/// most `chunkEmployeesMax` employees: a big run still splits into several jobs, many small runs
/// share one. Payload `{"parts": [{"runId", "version", "chunk", "from", "to"}, …]}`; dedup key
/// the first part's `run.chunk:<tenant>:<run>:v<version>:<chunk>` (unique: a part is in one job).
/// In the caller's transaction (the plan job's), tenant set; the runs are locked in id order.
extension RunPlanner {
    /// One planned part: a contiguous id range of one run, a `run_chunks` row.
    public struct Part: Sendable, Hashable {
        public var runId: Int64
        public var version: Int32
        public var chunkNo: Int32
        public var from: Int64
        public var to: Int64
        public var employees: Int

        public init(runId: Int64, version: Int32, chunkNo: Int32, from: Int64, to: Int64, employees: Int) {
            self.runId = runId
            self.version = version
            self.chunkNo = chunkNo
            self.from = from
            self.to = to
            self.employees = employees
        }

        /// `{"runId":R,"version":V,"chunk":N,"from":A,"to":B}`.
        public var json: String { "{\"runId\":\(runId),\"version\":\(version),\"chunk\":\(chunkNo),\"from\":\(from),\"to\":\(to)}" }
    }

    public struct PackedOutcome: Sendable {
        /// Runs planned, in id order.
        public var plannedRunIds: [Int64] = []
        /// Runs not planned (closed, already planned, missing), with the reason.
        public var skipped: [(runId: Int64, reason: String)] = []
        /// The chunk jobs enqueued, each the parts it computes.
        public var jobs: [[Part]] = []
        public var employees = 0
    }

    public static func planMany(tenantId: Int64, runIds: [Int64], chunkEmployeesMax: Int = chunkEmployeesMaxDefault,
                                on connection: PostgresConnection) throws -> PackedOutcome {
        precondition(chunkEmployeesMax > 0, "chunkEmployeesMax must be positive")
        var outcome = PackedOutcome()
        let runs = try connection.query("""
            SELECT \(PayrollRun.columns) FROM payrun.payroll_runs WHERE tenant_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE
            """, [.int(tenantId), .int64Array(runIds)]).map { try PayrollRun(row: $0) }
        let found = Set(runs.map(\.id))
        for id in Set(runIds).subtracting(found).sorted() {
            outcome.skipped.append((id, "run \(id) does not exist in tenant \(tenantId)"))
        }
        var plannable: [PayrollRun] = []
        for run in runs {
            if run.status.isClosed { outcome.skipped.append((run.id, "run \(run.id) is \(run.status.rawValue)")); continue }
            let failedBeforePlanning = run.status == .failed && run.chunksTotal == 0
            if run.status != .planned && !failedBeforePlanning {
                outcome.skipped.append((run.id, "run \(run.id) is already \(run.status.rawValue)"))
                continue
            }
            plannable.append(run)
        }
        if plannable.isEmpty { return outcome }

        // Parts per run, and jobs per period (a job's parts share the period its load reads).
        var partsByRun: [Int64: [Part]] = [:]
        var employeesByRun: [Int64: Int] = [:]
        let periods = Dictionary(grouping: plannable) { "\($0.periodStart)/\($0.periodEnd)" }
        for key in periods.keys.sorted() {
            guard let group = periods[key]?.sorted(by: { ($0.workplaceId, $0.id) < ($1.workplaceId, $1.id) }),
                  let first = group.first else { continue }
            var idsByWorkplace: [Int64: [Int64]] = [:]
            var unsortedWorkplaces = Set<Int64>()
            // Binary COPY: a large run lists 10⁵–10⁶ ids, which a result set decodes several times slower.
            // Every value spliced in is an integer or a date. No ORDER BY: the server's sort of every
            // employee of the tenant was more than half of this statement (100k month-end: 27k rows of
            // one tenant, 34–39 → 12–13 ms, EXPLAIN ANALYZE minimum of 12); the index scan by
            // `employees_by_workplace` yields each workplace's ids ascending already, and a workplace
            // whose ids did not come in ascending order (another plan, e.g. a bitmap scan) is sorted here.
            try connection.copyOut("""
                COPY (SELECT workplace_id, id FROM payrun.employees
                       WHERE tenant_id = \(tenantId)
                         AND workplace_id = ANY('{\(group.map { String($0.workplaceId) }.joined(separator: ","))}'::bigint[])
                         AND (hired_on IS NULL OR hired_on <= \(DateConversion.dateLiteral(first.periodEnd)))
                         AND (left_on IS NULL OR left_on >= \(DateConversion.dateLiteral(first.periodStart)))
                     ) TO STDOUT (FORMAT binary)
                """) { row in
                let workplaceId = try row.int64(), id = try row.int64()
                if let last = idsByWorkplace[workplaceId]?.last, last >= id { unsortedWorkplaces.insert(workplaceId) }
                idsByWorkplace[workplaceId, default: []].append(id)
            }
            for workplaceId in unsortedWorkplaces { idsByWorkplace[workplaceId]?.sort() }
            var job: [Part] = []
            var jobEmployees = 0
            for run in group {
                let ids = idsByWorkplace[run.workplaceId] ?? []
                employeesByRun[run.id] = ids.count
                var parts: [Part] = []
                var i = 0
                while i < ids.count {
                    let upper = min(i + chunkEmployeesMax, ids.count)
                    parts.append(Part(runId: run.id, version: run.version, chunkNo: Int32(parts.count), from: ids[i],
                                      to: ids[upper - 1], employees: upper - i))
                    i = upper
                }
                partsByRun[run.id] = parts
                for part in parts {
                    if jobEmployees + part.employees > chunkEmployeesMax, !job.isEmpty {
                        outcome.jobs.append(job)
                        job = []
                        jobEmployees = 0
                    }
                    job.append(part)
                    jobEmployees += part.employees
                }
            }
            if !job.isEmpty { outcome.jobs.append(job) }
        }

        let planned = plannable.map(\.id).sorted()
        let allParts = planned.flatMap { partsByRun[$0] ?? [] }
        try connection.execute("DELETE FROM payrun.run_chunks WHERE tenant_id = $1 AND run_id = ANY($2)",
                               [.int(tenantId), .int64Array(planned)])
        try connection.execute("""
            INSERT INTO payrun.run_chunks (tenant_id, run_id, chunk_no, employee_id_from, employee_id_to, employees_planned)
            SELECT $1, u.run_id, u.chunk_no, u.id_from, u.id_to, u.employees
              FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
                   AS u(run_id, chunk_no, id_from, id_to, employees)
            """, [.int(tenantId), .int64Array(allParts.map(\.runId)), .int64Array(allParts.map { Int64($0.chunkNo) }),
                  .int64Array(allParts.map(\.from)), .int64Array(allParts.map(\.to)), .int64Array(allParts.map { Int64($0.employees) })])
        // The chunk jobs with one statement and one notification (two statements per job before).
        try JobSQL.enqueueMany(kind: PayrollJobKind.chunk, tenantId: tenantId, jobs: outcome.jobs.compactMap { parts in
            guard let head = parts.first else { return nil }
            return (payload: "{\"parts\":[\(parts.map(\.json).joined(separator: ","))]}",
                    dedupKey: "\(PayrollJobKind.chunk):\(tenantId):\(head.runId):v\(head.version):\(head.chunkNo)")
        }, priority: JobSQL.chunkPriority, on: connection)
        try connection.execute("""
            UPDATE payrun.payroll_runs r
               SET status = 'calculating', employees_total = u.employees, employees_done = 0, employees_failed = 0,
                   chunks_total = u.chunks, chunks_done = 0, error = NULL, updated_at = now()
              FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u(id, employees, chunks)
             WHERE r.tenant_id = $1 AND r.id = u.id
            """, [.int(tenantId), .int64Array(planned), .int64Array(planned.map { Int64(employeesByRun[$0] ?? 0) }),
                  .int64Array(planned.map { Int64(partsByRun[$0]?.count ?? 0) })])
        for id in planned where (partsByRun[id] ?? []).isEmpty {
            try RunFinalizer.finalize(tenantId: tenantId, runId: id, on: connection)
        }
        outcome.plannedRunIds = planned
        outcome.employees = planned.reduce(0) { $0 + (employeesByRun[$1] ?? 0) }
        return outcome
    }
}
