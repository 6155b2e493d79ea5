import PayrollRules
import PostgresClient

/// `Recalculation.run` for many employee-periods of one tenant at once, in the caller's
/// transaction (tenant set): the batched `employee.recalc` path. Same outcome per request as
/// `Recalculation.run`, with the per-statement costs shared by the whole batch:
///
/// 1. one statement finds, for every request, whether the employee exists and which open run
///    covers its period;
/// 2. one statement locks those runs `FOR KEY SHARE` (in id order, like every run lock here);
/// 3. one statement records the requests that hit an approved run as pending corrections;
/// 4. per run: `ChunkLoader` with the batch's employees (`.ids`, one set of COPYs), compute with
///    `calculate`, one statement reads the stored payslips' totals (runs planned into chunks or
///    calculated), one `PayslipWriter.write` (COPY + upsert), one statement moving the covering
///    chunks' totals, one run update with the summed deltas (calculated runs).
///
/// A request naming the same employee-period twice is computed once (both get the outcome).
public enum BatchRecalculation {
    /// One recalculation request (an `employee.recalc` job's payload).
    public struct Request: Sendable, Hashable {
        public var employeeId: Int64
        public var periodStart: LocalDate
        public var reason: String?

        public init(employeeId: Int64, periodStart: LocalDate, reason: String? = nil) {
            self.employeeId = employeeId
            self.periodStart = periodStart
            self.reason = reason
        }
    }

    /// Outcomes aligned with `requests`.
    public static func run(tenantId: Int64, requests: [Request],
                           calculate: ChunkProcessor.Calculate = ChunkProcessor.serial,
                           on connection: PostgresConnection) throws -> [Recalculation.Outcome] {
        if requests.isEmpty { return [] }
        var outcomes = [Recalculation.Outcome](repeating: .noRun, count: requests.count)

        // 1. Existence and covering run, for all requests in one statement.
        let found = try connection.queryPrepared("""
            SELECT q.n, e.id IS NOT NULL, r.id
              FROM unnest($2::bigint[], $3::date[]) WITH ORDINALITY AS q(employee_id, period, n)
              LEFT JOIN payrun.employees e ON e.tenant_id = $1 AND e.id = q.employee_id
              LEFT JOIN LATERAL (SELECT r.id FROM payrun.payroll_runs r
                                  WHERE r.tenant_id = e.tenant_id AND r.workplace_id = e.workplace_id
                                    AND q.period BETWEEN r.period_start AND r.period_end AND r.status <> 'cancelled'
                                  ORDER BY r.id DESC LIMIT 1) r ON true
            """, [.int(tenantId), .int64Array(requests.map(\.employeeId)),
                  .textArray(requests.map { $0.periodStart.description })])
        var runOfRequest = [Int64?](repeating: nil, count: requests.count)
        for row in found {
            let index = Int(try row.int64(at: 0)) - 1
            guard requests.indices.contains(index) else { continue }
            if !(try row.bool(at: 1)) {
                outcomes[index] = .employeeNotFound
            } else {
                runOfRequest[index] = try row.decode(Int64?.self, at: 2)
            }
        }
        let runIds = Set(runOfRequest.compactMap { $0 }).sorted()
        if runIds.isEmpty { return outcomes }

        // 2. Lock the runs (key share: batches and single recalculations do not block each other;
        //    planning and chunk completion, which take FOR UPDATE, wait for us and we for them).
        let runs = try connection.queryPrepared(
            "SELECT \(PayrollRun.columns) FROM payrun.payroll_runs WHERE tenant_id = $1 AND id = ANY($2::bigint[]) ORDER BY id FOR KEY SHARE",
            [.int(tenantId), .int64Array(runIds)]
        ).map { try PayrollRun(row: $0) }

        // 3. Approved runs: pending corrections, one statement.
        let approved = Set(runs.filter { $0.status == .approved }.map(\.id))
        var corrections: [(run: Int64, employee: Int64, reason: String?)] = []
        var seenCorrections = Set<[Int64]>()
        for (i, runId) in runOfRequest.enumerated() {
            guard let runId, approved.contains(runId) else { continue }
            outcomes[i] = .pendingCorrection(runId: runId)
            if seenCorrections.insert([runId, requests[i].employeeId]).inserted {
                corrections.append((runId, requests[i].employeeId, requests[i].reason))
            }
        }
        if !corrections.isEmpty {
            try connection.executePrepared("""
                INSERT INTO payrun.pending_corrections AS c (tenant_id, run_id, employee_id, reason)
                SELECT $1, q.run_id, q.employee_id, nullif(q.reason, '') FROM unnest($2::bigint[], $3::bigint[], $4::text[]) AS q(run_id, employee_id, reason)
                ON CONFLICT (tenant_id, run_id, employee_id) WHERE resolved_at IS NULL
                DO UPDATE SET requested_at = now(), reason = coalesce(EXCLUDED.reason, c.reason)
                """, [.int(tenantId), .int64Array(corrections.map(\.run)), .int64Array(corrections.map(\.employee)),
                      .textArray(corrections.map { $0.reason ?? "" })])
        }

        // 4. Open runs: load, compute, write, move totals — per run.
        for run in runs where !approved.contains(run.id) {
            let indices = runOfRequest.indices.filter { runOfRequest[$0] == run.id }
            let employeeIds = Array(Set(indices.map { requests[$0].employeeId })).sorted()
            let chunk = try ChunkLoader.load(run: run, selection: .ids(employeeIds), on: connection)
            // Employees that exist but are not employed in this run's period at this workplace: noRun.
            guard !chunk.employees.isEmpty else { continue }
            let computed = ChunkProcessor.compute(chunk, calculate: calculate)
            let calculated = run.status == .calculated || run.status == .calculatedWithErrors
            let tracked = Recalculation.tracksTotals(run)
            if tracked {
                try RunFinalizer.holdCoveringChunks(tenantId: tenantId, runId: run.id, employeeIds: computed.map(\.employeeId), on: connection)
            }
            let before = tracked ? try storedTotals(tenantId: tenantId, runId: run.id, employeeIds: computed.map(\.employeeId),
                                                    on: connection) : [:]
            try PayslipWriter.write(computed, run: run, on: connection)
            var resultById: [Int64: Result<Payslip, PayrollError>] = [:]
            var delta = [Int64](repeating: 0, count: 8)
            var changes: [RunFinalizer.PayslipChange] = []
            for p in computed {
                resultById[p.employeeId] = p.result
                let change = PayslipTotals(p.result).deltaValues(from: before[p.employeeId])
                changes.append(.init(employeeId: p.employeeId, delta: change))
                for k in 0..<8 { delta[k] += change[k] }
            }
            if tracked { try Recalculation.moveChunkTotals(tenantId: tenantId, runId: run.id, changes: changes, on: connection) }
            if calculated {
                try Recalculation.moveRunTotals(tenantId: tenantId, runId: run.id, by: delta, on: connection)
            }
            for i in indices {
                if let result = resultById[requests[i].employeeId] { outcomes[i] = .replaced(runId: run.id, result: result) }
            }
        }
        return outcomes
    }

    /// The stored payslips' contributions to their run, by employee (absent: no payslip yet).
    static func storedTotals(tenantId: Int64, runId: Int64, employeeIds: [Int64],
                             on connection: PostgresConnection) throws -> [Int64: PayslipTotals] {
        var totals: [Int64: PayslipTotals] = [:]
        for row in try connection.queryPrepared("""
            SELECT employee_id, error IS NULL, jsonb_array_length(warnings), coalesce(gross_won, 0), coalesce(non_taxable_won, 0),
                   coalesce(taxable_won, 0), coalesce(total_deductions_won, 0), coalesce(net_won, 0)
              FROM payrun.payslips WHERE tenant_id = $1 AND run_id = $2 AND employee_id = ANY($3::bigint[])
            """, [.int(tenantId), .int(runId), .int64Array(employeeIds)]) {
            var t = PayslipTotals()
            if try row.bool(at: 1) { t.done = 1 } else { t.failed = 1 }
            t.warnings = try row.int32(at: 2)
            t.amounts = try (3...7).map { try row.int64(at: $0) }
            totals[try row.int64(at: 0)] = t
        }
        return totals
    }
}
