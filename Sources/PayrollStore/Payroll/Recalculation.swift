import PayrollRules
import PostgresClient

/// Recomputes one employee-period and replaces that payslip in the open run covering it, in the
/// caller's transaction (the `employee.recalc` job's, tenant set). A locked (approved) run is never
/// changed: the request is recorded in `pending_corrections` for a correction run instead.
///
/// Cost is independent of the run's size: the finished chunk covering the employee and, on a
/// calculated run, the run's totals and counters move by the difference between the old and the
/// new payslip (one row update each, the run's taken last so concurrent recalculations of one run
/// hold its row only briefly; an employee outside every chunk widens one, reading the run's
/// payslips once), and the run's input digest is cleared
/// (stale); approval recomputes every chunk digest and the totals from the payslips before locking.
/// Recalculations lock the run row `FOR KEY SHARE`: they do not block each other, but wait for
/// planning and chunk completion (`FOR UPDATE`). If the run is approved meanwhile, the payslip
/// triggers refuse the write and the retried job records a pending correction.
public enum Recalculation {
    public enum Outcome: Sendable {
        /// The payslip was replaced (it may carry an error: `result`).
        case replaced(runId: Int64, result: Result<Payslip, PayrollError>)
        /// The run is approved: the request is kept as a pending correction.
        case pendingCorrection(runId: Int64)
        /// No open run covers the period for this employee's workplace: nothing to replace yet
        /// (the month-end run will compute it).
        case noRun
        /// The employee does not exist in this tenant.
        case employeeNotFound
    }

    public static func run(tenantId: Int64, employeeId: Int64, periodStart: LocalDate, reason: String? = nil,
                           on connection: PostgresConnection) throws -> Outcome {
        // One statement: does the employee exist here, and which open run covers the period?
        guard let found = try connection.queryOnePrepared("""
            SELECT r.id FROM payrun.employees e
              LEFT JOIN LATERAL (SELECT r.id FROM payrun.payroll_runs r
                                  WHERE r.tenant_id = e.tenant_id AND r.workplace_id = e.workplace_id
                                    AND $3 BETWEEN r.period_start AND r.period_end AND r.status <> 'cancelled'
                                  ORDER BY r.id DESC LIMIT 1) r ON true
             WHERE e.tenant_id = $1 AND e.id = $2
            """, [.int(tenantId), .int(employeeId), .date(DateConversion.postgresDate(periodStart))])
        else { return .employeeNotFound }
        guard let runId = try found.decode(Int64?.self, at: 0) else { return .noRun }
        // Lock the run first (same order as chunk jobs: run row, then payslips).
        guard let run = try PayrollRun.fetch(tenantId: tenantId, runId: runId, keyShare: true, on: connection) else { return .noRun }
        if run.status == .approved {
            try connection.execute("""
                INSERT INTO payrun.pending_corrections AS c (tenant_id, run_id, employee_id, reason)
                VALUES ($1, $2, $3, $4)
                ON CONFLICT (tenant_id, run_id, employee_id) WHERE resolved_at IS NULL
                DO UPDATE SET requested_at = now(), reason = coalesce(EXCLUDED.reason, c.reason)
                """, [.int(tenantId), .int(runId), .int(employeeId), .text(reason)])
            return .pendingCorrection(runId: runId)
        }
        let chunk = try ChunkLoader.load(run: run, selection: .one(employeeId), on: connection)
        guard !chunk.employees.isEmpty else {
            // Exists, but not employed in this run's period at this workplace.
            return .noRun
        }
        let computed = ChunkProcessor.compute(chunk, calculate: ChunkProcessor.serial)
        let calculated = run.status == .calculated || run.status == .calculatedWithErrors
        let tracked = tracksTotals(run)
        if tracked { try RunFinalizer.holdCoveringChunks(tenantId: tenantId, runId: runId, employeeIds: [employeeId], on: connection) }
        let before = tracked ? try PayslipTotals.fetch(tenantId: tenantId, runId: runId, employeeId: employeeId, on: connection) : nil
        try PayslipWriter.write(computed, run: run, on: connection)
        if tracked {
            let delta = PayslipTotals(computed[0].result).deltaValues(from: before)
            try moveChunkTotals(tenantId: tenantId, runId: runId, changes: [.init(employeeId: computed[0].employeeId, delta: delta)],
                                on: connection)
            if calculated { try moveRunTotals(tenantId: tenantId, runId: runId, by: delta, on: connection) }
        }
        return .replaced(runId: runId, result: computed[0].result)
    }

    /// Whether a recalculation in `run` must keep chunk and run totals (migration 0016): once the
    /// run is planned into chunks, or calculated (also with no chunk). A run not planned yet gets
    /// its chunks, and their totals, from planning.
    static func tracksTotals(_ run: PayrollRun) -> Bool {
        run.chunksTotal > 0 || run.status == .calculated || run.status == .calculatedWithErrors
    }

    /// Moves the finished chunks covering `changes` by them (`RunFinalizer.moveChunkTotals`) and,
    /// when a payslip lies outside every chunk, widens a chunk over it (`coverStrayPayslips`).
    static func moveChunkTotals(tenantId: Int64, runId: Int64, changes: [RunFinalizer.PayslipChange],
                                on connection: PostgresConnection) throws {
        let covered = try RunFinalizer.moveChunkTotals(tenantId: tenantId, runId: runId, changes: changes, on: connection)
        if covered < changes.count { try RunFinalizer.coverStrayPayslips(tenantId: tenantId, runId: runId, on: connection) }
    }

    /// Moves a calculated run's counters and totals by `delta` (employees done, employees failed,
    /// warnings as int4, then gross, non-taxable, taxable, total deductions, net as int8: the
    /// difference between new and old payslips, `PayslipTotals.deltaValues`), sets its status from the
    /// failure count, and clears its input digest (stale until approval recomputes it).
    static func moveRunTotals(tenantId: Int64, runId: Int64, by delta: [Int64], on connection: PostgresConnection) throws {
        precondition(delta.count == 8, "a run-totals delta has 8 values")
        let values: [PostgresValue] = delta[0..<3].map { .int32(Int32(clamping: $0)) } + delta[3...].map { .int($0) }
        try connection.executePrepared("""
            UPDATE payrun.payroll_runs
               SET employees_done = employees_done + $3, employees_failed = employees_failed + $4,
                   employees_total = greatest(employees_total, employees_done + $3 + employees_failed + $4),
                   warnings_count = warnings_count + $5,
                   gross_won = gross_won + $6, non_taxable_won = non_taxable_won + $7, taxable_won = taxable_won + $8,
                   total_deductions_won = total_deductions_won + $9, net_won = net_won + $10,
                   status = CASE WHEN employees_failed + $4 > 0 THEN 'calculated_with_errors' ELSE 'calculated' END,
                   input_digest = NULL, updated_at = now()
             WHERE tenant_id = $1 AND id = $2
            """, [.int(tenantId), .int(runId)] + values)
    }
}
