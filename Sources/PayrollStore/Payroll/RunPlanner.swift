import PayrollRules
import PostgresClient

/// Plans a run into chunks of at most `chunkEmployeesMax` employees (contiguous employee-id
/// ranges), records them in `payrun.run_chunks`, and enqueues one `run.chunk` job per chunk with
/// the dedup key `run.chunk:<tenant>:<run>:v<version>:<chunk>`. In the caller's transaction (the
/// plan job's), with the tenant set; the run row is locked first.
public enum RunPlanner {
    public static let chunkEmployeesMaxDefault = 2_000

    public enum Outcome: Sendable, Hashable {
        case planned(chunks: Int, employees: Int)
        /// The run is approved or cancelled, or already planned: nothing to do.
        case skipped(reason: String)
    }

    public static func plan(tenantId: Int64, runId: Int64, chunkEmployeesMax: Int = chunkEmployeesMaxDefault,
                            on connection: PostgresConnection) throws -> Outcome {
        precondition(chunkEmployeesMax > 0, "chunkEmployeesMax must be positive")
        guard let run = try PayrollRun.fetch(tenantId: tenantId, runId: runId, forUpdate: true, on: connection) else {
            throw PayrollStoreError(.notFound, "run \(runId) does not exist in tenant \(tenantId)")
        }
        if run.status.isClosed { return .skipped(reason: "run \(runId) is \(run.status.rawValue)") }
        // A run failed by its plan job (RunFailure: never planned, no chunks) is planned by a retry of that job.
        let failedBeforePlanning = run.status == .failed && run.chunksTotal == 0
        if run.status != .planned && !failedBeforePlanning {
            return .skipped(reason: "run \(runId) is already \(run.status.rawValue)")
        }

        let ids = try connection.query("""
            SELECT id FROM payrun.employees
             WHERE tenant_id = $1 AND workplace_id = $2
               AND (hired_on IS NULL OR hired_on <= $4) AND (left_on IS NULL OR left_on >= $3)
             ORDER BY id
            """, [.int(tenantId), .int(run.workplaceId), .date(DateConversion.postgresDate(run.periodStart)),
                  .date(DateConversion.postgresDate(run.periodEnd))]).map { try $0.int64(at: 0) }
        var chunks: [(from: Int64, to: Int64, count: Int)] = []
        var i = 0
        while i < ids.count {
            let upper = min(i + chunkEmployeesMax, ids.count)
            chunks.append((ids[i], ids[upper - 1], upper - i))
            i = upper
        }
        try connection.execute("DELETE FROM payrun.run_chunks WHERE tenant_id = $1 AND run_id = $2", [.int(tenantId), .int(runId)])
        for (n, chunk) in chunks.enumerated() {
            try connection.execute("""
                INSERT INTO payrun.run_chunks (tenant_id, run_id, chunk_no, employee_id_from, employee_id_to, employees_planned)
                VALUES ($1, $2, $3, $4, $5, $6)
                """, [.int(tenantId), .int(runId), .int32(Int32(n)), .int(chunk.from), .int(chunk.to), .int32(Int32(chunk.count))])
            let payload = "{\"runId\":\(runId),\"version\":\(run.version),\"chunk\":\(n),\"from\":\(chunk.from),\"to\":\(chunk.to)}"
            try JobSQL.enqueue(kind: PayrollJobKind.chunk, tenantId: tenantId, payload: payload,
                               dedupKey: "\(PayrollJobKind.chunk):\(tenantId):\(runId):v\(run.version):\(n)",
                               priority: JobSQL.chunkPriority, on: connection)
        }
        try connection.execute("""
            UPDATE payrun.payroll_runs SET status = 'calculating', employees_total = $3, employees_done = 0,
                   employees_failed = 0, chunks_total = $4, chunks_done = 0, error = NULL, updated_at = now()
             WHERE tenant_id = $1 AND id = $2
            """, [.int(tenantId), .int(runId), .int32(Int32(ids.count)), .int32(Int32(chunks.count))])
        if chunks.isEmpty { try RunFinalizer.finalize(tenantId: tenantId, runId: runId, on: connection) }
        return .planned(chunks: chunks.count, employees: ids.count)
    }
}
