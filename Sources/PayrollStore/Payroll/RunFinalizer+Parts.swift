import PostgresClient

/// Completion of every part of a packed chunk job with a fixed number of statements, whatever the
/// number of parts (a month-end of 100,000 employees in 1,004 workplace runs has about 1,000
/// parts in 69 jobs: completing them one by one took three statements each). Same effects as
/// `completeChunk(…, finalizing: false)` for each part, in this order:
///
/// 0. the parts' chunk locks are taken in (run, chunk) order (recalculations hold the locks of
///    the chunks they write in, shared, before reading the payslips they replace:
///    `holdCoveringChunks`);
/// 1. each part's `run_chunks` row gets its digest, counts and totals from its stored payslips
///    (`chunkDigestSQL`), `finished_at` and its phase timings (one UPDATE over all parts);
/// 2. the runs' rows are locked in run-id order (`FOR NO KEY UPDATE`, the order `completeChunk`
///    used, so two jobs sharing runs cannot deadlock), then `chunks_done` grows by the number of
///    parts finished for the first time (a rerun part is not counted twice) — the same row-lock
///    queue that makes exactly one transaction see a run's count reach its total;
/// 3. the caller finalizes the returned runs (`finalize(tenantId:runIds:)`), then calls
///    `recordFinishTimes` so each part's `finish_us` is its share of the whole finish phase.
extension RunFinalizer {
    /// One part to complete: its chunk and the phase timings to store (already apportioned).
    public struct PartCompletion: Sendable, Hashable {
        public var runId: Int64
        public var chunkNo: Int32
        public var loadMicros: Int64
        public var computeMicros: Int64
        public var writeMicros: Int64
        public var shiftsLoaded: Int

        public init(runId: Int64, chunkNo: Int32, loadMicros: Int64, computeMicros: Int64, writeMicros: Int64, shiftsLoaded: Int) {
            self.runId = runId
            self.chunkNo = chunkNo
            self.loadMicros = loadMicros
            self.computeMicros = computeMicros
            self.writeMicros = writeMicros
            self.shiftsLoaded = shiftsLoaded
        }
    }

    /// Completes `parts` (each at most once; any order) in the caller's transaction and returns
    /// the ids (ascending) of the runs whose every chunk is now finished and whose status allows
    /// finalization — the caller finalizes them in the same transaction.
    public static func completeChunks(tenantId: Int64, parts: [PartCompletion], on connection: PostgresConnection) throws -> [Int64] {
        if parts.isEmpty { return [] }
        var keys = Set<PartKey>()
        for part in parts where !keys.insert(PartKey(runId: part.runId, chunkNo: part.chunkNo)).inserted {
            throw PayrollStoreError(.invalidRequest, "chunk \(part.chunkNo) of run \(part.runId) is listed twice in one job")
        }
        // Take the parts' chunk locks first, in (run, chunk) order, then sum their payslips in a new
        // statement: a recalculation holding one of them (`holdCoveringChunks`) has committed by then.
        try lockChunksExclusively(chunks: parts.map { ($0.runId, $0.chunkNo) }, on: connection)
        let updated = try connection.query("""
            WITH parts AS (
                SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
                           AS u(run_id, chunk_no, load_us, compute_us, write_us, shifts_loaded)),
                 before AS (
                SELECT c.run_id, c.chunk_no, c.finished_at IS NULL AS first, d.*,
                       p.load_us, p.compute_us, p.write_us, p.shifts_loaded
                  FROM parts p
                  JOIN payrun.run_chunks c ON c.tenant_id = $1 AND c.run_id = p.run_id AND c.chunk_no = p.chunk_no,
                       LATERAL (\(chunkDigestSQL)) AS d(digest, ok, failed, warnings, gross, non_taxable, taxable, deductions, net))
            UPDATE payrun.run_chunks c
               SET input_digest = b.digest, employees_done = b.ok, employees_failed = b.failed,
                   warnings_count = b.warnings, gross_won = b.gross, non_taxable_won = b.non_taxable, taxable_won = b.taxable,
                   total_deductions_won = b.deductions, net_won = b.net, finished_at = now(),
                   load_us = b.load_us, compute_us = b.compute_us, write_us = b.write_us, finish_us = NULL,
                   shifts_loaded = b.shifts_loaded
              FROM before b
             WHERE c.tenant_id = $1 AND c.run_id = b.run_id AND c.chunk_no = b.chunk_no
            RETURNING c.run_id, c.chunk_no, b.first
            """, [.int(tenantId), .int64Array(parts.map(\.runId)), .int64Array(parts.map { Int64($0.chunkNo) }),
                  .int64Array(parts.map(\.loadMicros)), .int64Array(parts.map(\.computeMicros)),
                  .int64Array(parts.map(\.writeMicros)), .int64Array(parts.map { Int64($0.shiftsLoaded) })])
        var firstTime: [Int64: Int64] = [:]
        var found = Set<PartKey>()
        for row in updated {
            let runId = try row.int64(at: 0)
            found.insert(PartKey(runId: runId, chunkNo: try row.int32(at: 1)))
            firstTime[runId, default: 0] += try row.bool(at: 2) ? 1 : 0
        }
        if let missing = parts.first(where: { !found.contains(PartKey(runId: $0.runId, chunkNo: $0.chunkNo)) }) {
            throw PayrollStoreError(.notFound, "chunk \(missing.chunkNo) of run \(missing.runId) does not exist in tenant \(tenantId)")
        }

        let runIds = firstTime.keys.sorted()
        // Lock first, in id order; then count. (An UPDATE … FROM locks in whatever order its plan visits the rows.)
        _ = try connection.query("""
            SELECT r.id FROM payrun.payroll_runs r WHERE r.tenant_id = $1 AND r.id = ANY($2::bigint[]) ORDER BY r.id FOR NO KEY UPDATE
            """, [.int(tenantId), .int64Array(runIds)])
        let counted = try connection.query("""
            UPDATE payrun.payroll_runs r SET chunks_done = r.chunks_done + u.n, updated_at = now()
              FROM unnest($2::bigint[], $3::bigint[]) AS u(run_id, n)
             WHERE r.tenant_id = $1 AND r.id = u.run_id
            RETURNING r.id, r.chunks_done, r.chunks_total, r.status
            """, [.int(tenantId), .int64Array(runIds), .int64Array(runIds.map { firstTime[$0] ?? 0 })])
        if counted.count != runIds.count {
            let seen = Set(try counted.map { try $0.int64(at: 0) })
            let missing = runIds.first { !seen.contains($0) } ?? -1
            throw PayrollStoreError(.notFound, "run \(missing) does not exist in tenant \(tenantId)")
        }
        var due: [Int64] = []
        for row in counted {
            let done = try row.int32(at: 1), total = try row.int32(at: 2)
            if done >= total, finalizableStatuses.contains(try row.string(at: 3)) { due.append(try row.int64(at: 0)) }
        }
        return due.sorted()
    }

    /// Stores each part's `finish_us` (its share of the job's finish phase) after the finish phase ended.
    public static func recordFinishTimes(tenantId: Int64, parts: [(runId: Int64, chunkNo: Int32, finishMicros: Int64)],
                                         on connection: PostgresConnection) throws {
        if parts.isEmpty { return }
        try connection.execute("""
            UPDATE payrun.run_chunks c SET finish_us = u.finish_us
              FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u(run_id, chunk_no, finish_us)
             WHERE c.tenant_id = $1 AND c.run_id = u.run_id AND c.chunk_no = u.chunk_no
            """, [.int(tenantId), .int64Array(parts.map(\.runId)), .int64Array(parts.map { Int64($0.chunkNo) }),
                  .int64Array(parts.map(\.finishMicros))])
    }

    /// The statuses from which a run whose chunks are all finished is finalized.
    static let finalizableStatuses: Set<String> = [PayrollRunStatus.calculating.rawValue, PayrollRunStatus.calculated.rawValue,
                                                   PayrollRunStatus.calculatedWithErrors.rawValue, PayrollRunStatus.failed.rawValue]

    private struct PartKey: Hashable {
        var runId: Int64
        var chunkNo: Int32
    }
}
