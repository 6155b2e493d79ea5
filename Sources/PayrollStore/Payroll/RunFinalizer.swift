import PostgresClient

/// Chunk completion and run finalization. The last chunk to commit marks the run `calculated` (or
/// `calculated_with_errors` when any payslip carries an error) with totals, error and warning
/// counts and the input digest = SHA-256 over the chunk digests in chunk order, where a chunk's
/// digest is SHA-256 over (employee id, payslip input digest) in employee-id order.
///
/// Race-free without holding the run row for the whole chunk: chunk jobs hold it `FOR KEY SHARE`
/// while they load and write (so they run side by side, and planning or approval, which take
/// `FOR UPDATE`, wait), and `completeChunk` ends with one `UPDATE … SET chunks_done = chunks_done
/// + 1` of the run row. Those updates of one run queue on the row lock until the previous one
/// commits and each re-reads the latest row version, so exactly one transaction sees the count
/// reach the total, and its finalization (a new statement, hence a new snapshot under READ
/// COMMITTED) sees every other chunk's payslips. The run row is held exclusively only from that
/// update to the commit. A chunk already finished (a rerun) is not counted twice.
public enum RunFinalizer {
    /// A chunk's digest from the stored payslips in its range (an error's text stands in for a
    /// missing input digest, so a failed employee still counts).
    static let chunkDigestSQL = """
        SELECT sha256(coalesce(string_agg(int8send(p.employee_id)
                                          || coalesce(p.input_digest, sha256(convert_to(p.error::text, 'UTF8'))),
                                          ''::bytea ORDER BY p.employee_id), ''::bytea)),
               count(*) FILTER (WHERE p.error IS NULL), count(*) FILTER (WHERE p.error IS NOT NULL)
          FROM payrun.payslips p
         WHERE p.tenant_id = c.tenant_id AND p.run_id = c.run_id
           AND p.employee_id BETWEEN c.employee_id_from AND c.employee_id_to
        """

    /// Records chunk `chunkNo` as finished and finalizes the run if it was the last. Call in the
    /// chunk job's transaction after `PayslipWriter.write`. Returns true if this call finalized the run.
    /// `phases`: the chunk's load/compute/write timings and the instant its finish phase began,
    /// stored in `run_chunks` (`load_us` … `shifts_loaded`, migration 0010; `finish_us` runs up to
    /// that UPDATE, i.e. includes reading the chunk digest). Without it those columns are set to NULL.
    /// `finalizing: false` leaves the finalization to the caller (`finalize(tenantId:runIds:)` later
    /// in the same transaction, for a packed job's runs at once); the return value says it is due.
    @discardableResult
    public static func completeChunk(tenantId: Int64, runId: Int64, chunkNo: Int32,
                                     phases: (timings: ChunkPhaseTimings, finishStartedAt: ContinuousClock.Instant)? = nil,
                                     finalizing: Bool = true,
                                     on connection: PostgresConnection) throws -> Bool {
        // The chunk's digest and counts from its stored payslips, and whether it was finished
        // before (a rerun: not counted again). Only this chunk's job writes its row while the
        // run is at this version, so reading it first is safe.
        guard let chunk = try connection.queryOnePrepared("""
            SELECT d.*, c.finished_at IS NULL FROM payrun.run_chunks c, LATERAL (\(chunkDigestSQL)) AS d
             WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.chunk_no = $3
            """, [.int(tenantId), .int(runId), .int32(chunkNo)])
        else { throw PayrollStoreError(.notFound, "chunk \(chunkNo) of run \(runId) does not exist in tenant \(tenantId)") }
        let first = try chunk.bool(at: 3)
        var phaseValues: [PostgresValue] = Array(repeating: .null, count: 5)
        if let phases {
            let t = phases.timings
            phaseValues = [.int(t.load.wholeMicroseconds), .int(t.compute.wholeMicroseconds), .int(t.write.wholeMicroseconds),
                           .int((ContinuousClock.now - phases.finishStartedAt).wholeMicroseconds),
                           .int32(Int32(clamping: t.shiftsLoaded))]
        }
        try connection.executePrepared("""
            UPDATE payrun.run_chunks
               SET input_digest = $4, employees_done = $5, employees_failed = $6, finished_at = now(),
                   load_us = $7, compute_us = $8, write_us = $9, finish_us = $10, shifts_loaded = $11
             WHERE tenant_id = $1 AND run_id = $2 AND chunk_no = $3
            """, [.int(tenantId), .int(runId), .int32(chunkNo), .bytea(try chunk.bytea(at: 0)),
                  .int32(Int32(clamping: try chunk.int64(at: 1))), .int32(Int32(clamping: try chunk.int64(at: 2)))] + phaseValues)
        guard let row = try connection.queryOnePrepared("""
            UPDATE payrun.payroll_runs SET chunks_done = chunks_done + $3, updated_at = now()
             WHERE tenant_id = $1 AND id = $2
            RETURNING chunks_done, chunks_total, status
            """, [.int(tenantId), .int(runId), .int32(first ? 1 : 0)])
        else { throw PayrollStoreError(.notFound, "run \(runId) does not exist in tenant \(tenantId)") }
        let done = try row.int32(at: 0), total = try row.int32(at: 1)
        // A chunk rerun on an already calculated run refreshes its totals and digest too; a run
        // `failed` by a chunk job that ran out of attempts (RunFailure) is finalized once a retry
        // of that job has finished every chunk.
        let status = try row.string(at: 2)
        guard done >= total, finalizableStatuses.contains(status) else { return false }
        if finalizing { try finalize(tenantId: tenantId, runId: runId, on: connection) }
        return true
    }

    /// Sets the run's status, counters, totals and digest from its payslips and chunks (and clears
    /// the failure reason of a run failed earlier).
    public static func finalize(tenantId: Int64, runId: Int64, on connection: PostgresConnection) throws {
        try finalize(tenantId: tenantId, runIds: [runId], on: connection)
    }
}
