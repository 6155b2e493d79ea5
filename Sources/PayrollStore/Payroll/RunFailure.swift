import PostgresClient

/// Marks a run `failed` when one of its jobs (`run.plan`, `run.chunk`) has used up its attempts,
/// recording why in `payroll_runs.error` (`{"code": "job_failed", "jobId", "kind", "message"}`).
/// Call in the transaction that marks the job failed (the pool's `onFinalFailure` hook), tenant set.
///
/// Only a run still being computed for that job is touched: `planned` for a plan job,
/// `calculating` at the job's `version` for a chunk job; approved, cancelled, calculated or
/// replanned runs are left alone. A later successful retry of the job undoes it: the planner plans
/// a failed, never-planned run, and the last chunk finalizes a failed run (clearing `error`).
public enum RunFailure {
    /// Returns true if the run was marked failed.
    @discardableResult
    public static func markFailed(tenantId: Int64, runId: Int64, version: Int32?, jobId: Int64, jobKind: String,
                                  lastError: String, on connection: PostgresConnection) throws -> Bool {
        let expectedStatus = version == nil ? PayrollRunStatus.planned.rawValue : PayrollRunStatus.calculating.rawValue
        return try connection.queryOne("""
            UPDATE payrun.payroll_runs
               SET status = 'failed', updated_at = now(),
                   error = jsonb_build_object('code', 'job_failed', 'jobId', $4::bigint, 'kind', $5::text, 'message', $6::text)
             WHERE tenant_id = $1 AND id = $2 AND status = $3 AND ($7::integer IS NULL OR version = $7::integer)
            RETURNING id
            """, [.int(tenantId), .int(runId), .text(expectedStatus), .int(jobId), .text(jobKind), .text(lastError),
                  version.map { .int32($0) } ?? .null]) != nil
    }

    /// The recorded failure reason of a run (`payroll_runs.error`), as one line, or nil.
    public static func reason(tenantId: Int64, runId: Int64, on connection: PostgresConnection) throws -> String? {
        guard let row = try connection.queryOne("""
            SELECT coalesce(error ->> 'kind', '') || ' job ' || coalesce(error ->> 'jobId', '?') || ' failed: '
                   || coalesce(error ->> 'message', error::text)
              FROM payrun.payroll_runs WHERE tenant_id = $1 AND id = $2 AND error IS NOT NULL
            """, [.int(tenantId), .int(runId)]) else { return nil }
        return try row.string(at: 0)
    }
}
