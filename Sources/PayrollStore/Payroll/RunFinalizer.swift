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
    /// A chunk's digest, counts and totals from the stored payslips in its range (an error's text
    /// stands in for a missing input digest, so a failed employee still counts). Columns, in the
    /// order of `chunkResultColumns`: digest, employees done, employees failed, warnings, gross,
    /// non-taxable, taxable, total deductions, net. `c` is the chunk's `run_chunks` row.
    static let chunkDigestSQL = """
        SELECT sha256(coalesce(string_agg(int8send(p.employee_id)
                                          || coalesce(p.input_digest, sha256(convert_to(p.error::text, 'UTF8'))),
                                          ''::bytea ORDER BY p.employee_id), ''::bytea)),
               count(*) FILTER (WHERE p.error IS NULL), count(*) FILTER (WHERE p.error IS NOT NULL),
               coalesce(sum(jsonb_array_length(p.warnings)), 0),
               coalesce(sum(p.gross_won), 0), coalesce(sum(p.non_taxable_won), 0), coalesce(sum(p.taxable_won), 0),
               coalesce(sum(p.total_deductions_won), 0), coalesce(sum(p.net_won), 0)
          FROM payrun.payslips p
         WHERE p.tenant_id = c.tenant_id AND p.run_id = c.run_id
           AND p.employee_id BETWEEN c.employee_id_from AND c.employee_id_to
        """

    /// The `run_chunks` columns `chunkDigestSQL`'s columns are stored in (migrations 0008, 0016).
    static let chunkResultColumns = """
        input_digest, employees_done, employees_failed, warnings_count, gross_won, non_taxable_won, taxable_won,
        total_deductions_won, net_won
        """

    /// Records chunk `chunkNo` as finished and finalizes the run if it was the last. Call in the
    /// chunk job's transaction after `PayslipWriter.write`. Returns true if this call finalized the run.
    /// `phases`: the chunk's load/compute/write timings and the instant its finish phase began,
    /// stored in `run_chunks` (`load_us` … `shifts_loaded`, migration 0010; `finish_us` runs up to
    /// the start of the UPDATE that aggregates the chunk's payslips). Without it those columns are set to NULL.
    /// `finalizing: false` leaves the finalization to the caller (`finalize(tenantId:runIds:)` later
    /// in the same transaction, for a packed job's runs at once); the return value says it is due.
    @discardableResult
    public static func completeChunk(tenantId: Int64, runId: Int64, chunkNo: Int32,
                                     phases: (timings: ChunkPhaseTimings, finishStartedAt: ContinuousClock.Instant)? = nil,
                                     finalizing: Bool = true,
                                     on connection: PostgresConnection) throws -> Bool {
        // Take the chunk's lock (a recalculation writing a payslip in its range holds it shared
        // until it commits: `holdCoveringChunks`), see whether it was finished before (a rerun:
        // not counted again), then — a new statement, so a new snapshot — its digest, counts and
        // totals from its stored payslips.
        try lockChunksExclusively(chunks: [(runId, chunkNo)], on: connection)
        guard let chunk = try connection.queryOnePrepared("""
            SELECT c.finished_at IS NULL FROM payrun.run_chunks c WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.chunk_no = $3
            """, [.int(tenantId), .int(runId), .int32(chunkNo)])
        else { throw PayrollStoreError(.notFound, "chunk \(chunkNo) of run \(runId) does not exist in tenant \(tenantId)") }
        let first = try chunk.bool(at: 0)
        var phaseValues: [PostgresValue] = Array(repeating: .null, count: 5)
        if let phases {
            let t = phases.timings
            phaseValues = [.int(t.load.wholeMicroseconds), .int(t.compute.wholeMicroseconds), .int(t.write.wholeMicroseconds),
                           .int((ContinuousClock.now - phases.finishStartedAt).wholeMicroseconds),
                           .int32(Int32(clamping: t.shiftsLoaded))]
        }
        try connection.executePrepared("""
            UPDATE payrun.run_chunks c
               SET (\(chunkResultColumns)) = (\(chunkDigestSQL)), finished_at = now(),
                   load_us = $4, compute_us = $5, write_us = $6, finish_us = $7, shifts_loaded = $8
             WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.chunk_no = $3
            """, [.int(tenantId), .int(runId), .int32(chunkNo)] + phaseValues)
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

    /// Sets the run's status, counters, totals and digest from its finished chunks (and clears
    /// the failure reason of a run failed earlier).
    public static func finalize(tenantId: Int64, runId: Int64, on connection: PostgresConnection) throws {
        try finalize(tenantId: tenantId, runIds: [runId], on: connection)
    }
}
