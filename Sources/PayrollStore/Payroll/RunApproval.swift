import PostgresClient

/// Approving a run locks it (triggers of 0001 refuse any later change to it or its payslips).
public enum RunApproval {
    /// Approves a `calculated` run; a `calculated_with_errors` run only with `allowErrors` (its
    /// failed employees are then paid through a correction). In the caller's transaction, tenant set.
    public static func approve(tenantId: Int64, runId: Int64, approvedBy: String, allowErrors: Bool = false,
                               on connection: PostgresConnection) throws -> PayrollRun {
        guard let run = try PayrollRun.fetch(tenantId: tenantId, runId: runId, forUpdate: true, on: connection) else {
            throw PayrollStoreError(.notFound, "run \(runId) does not exist in tenant \(tenantId)")
        }
        // Recalculations since the run was calculated left its digest stale: recompute every chunk's
        // digest, counts and totals from the payslips (after widening chunks over any payslip outside
        // them), then the run's from its chunks, so what is locked is exactly what is stored.
        if run.status == .calculated || run.status == .calculatedWithErrors {
            try RunFinalizer.coverStrayPayslips(tenantId: tenantId, runId: runId, on: connection)
            try connection.execute("""
                UPDATE payrun.run_chunks c SET (\(RunFinalizer.chunkResultColumns)) = (\(RunFinalizer.chunkDigestSQL))
                 WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.finished_at IS NOT NULL
                """, [.int(tenantId), .int(runId)])
            try RunFinalizer.finalize(tenantId: tenantId, runId: runId, on: connection)
        }
        guard let run = try PayrollRun.fetch(tenantId: tenantId, runId: runId, on: connection) else {
            throw PayrollStoreError(.notFound, "run \(runId) vanished")
        }
        switch run.status {
        case .calculated: break
        case .calculatedWithErrors where allowErrors: break
        case .calculatedWithErrors:
            throw PayrollStoreError(.invalidState, "run \(runId) has \(run.employeesFailed) failed employee(s); fix them and recalculate, or approve with --allow-errors")
        case .approved:
            return run
        default:
            throw PayrollStoreError(.invalidState, "run \(runId) is \(run.status.rawValue); only a calculated run can be approved")
        }
        try connection.execute("""
            UPDATE payrun.payroll_runs SET status = 'approved', approved_at = now(), approved_by = $3, updated_at = now()
             WHERE tenant_id = $1 AND id = $2
            """, [.int(tenantId), .int(runId), .text(approvedBy)])
        guard let approved = try PayrollRun.fetch(tenantId: tenantId, runId: runId, on: connection) else {
            throw PayrollStoreError(.notFound, "run \(runId) vanished")
        }
        return approved
    }
}
