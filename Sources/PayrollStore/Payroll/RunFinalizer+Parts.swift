import PostgresClient

/// Completion of every part of a packed chunk job with two statements, whatever the number of
/// parts (a month-end of 100,000 employees in 1,004 workplace runs has about 1,000 parts in 59
/// jobs). Same effects as `completeChunk` for each part, in this order:
///
/// 0. the parts' chunk locks are held exclusively, taken in (run, chunk) order — by the caller
///    before it wrote the payslips (`chunksLocked: true`, `ChunkProcessor.processParts`), else
///    here (recalculations hold the locks of the chunks they write in, shared, from before they
///    read the payslips they replace: `holdCoveringChunks`);
/// 1. each part's `run_chunks` row gets its digest, counts and totals, `finished_at` and its
///    phase timings. A part whose payslips the job wrote by direct COPY or plain insert from column arrays
///    (`PayslipWriter.Path.storedExactlyTheRowsSent`) with its lock already held
///    (`PartCompletion.written`) takes them from the worker when the rest of the chunk's
///    range holds no payslip (two index probes); any other part sums its stored payslips
///    (`chunkDigestSQL`: a scan and a sort of the chunk's payslips);
/// 2. the runs' rows are locked in run-id order (`FOR NO KEY UPDATE`, the order `completeChunk`
///    used, so two jobs sharing runs cannot deadlock) — the same row-lock queue that makes
///    exactly one transaction see a run's count reach its total;
/// 3. in a second statement (`countAndFinalize`: a new snapshot, taken after the runs' row locks
///    were granted, so it sees every other job's chunks of those runs and the runs' newest rows)
///    `chunks_done` grows by the number of parts finished for the first time (a rerun part is not
///    counted twice), a run whose count reaches its total is finalized from its chunks in the same
///    UPDATE (the parts' `finish_us` were stored with step 1: `PartCompletion.finishMicros`).
///
/// Why the worker's totals are the chunk's (migration 0016's invariant: every payslip of a run
/// in exactly one chunk, a finished chunk's totals equal to its payslips'): the job holds the
/// chunk's lock exclusively from before `PayslipWriter` checked that no payslip of the run lies
/// in the written employees' range (a new statement, so a snapshot taken after the lock: a
/// recalculation that held the lock shared has committed and its payslip is seen, and the
/// replacement path is taken instead). A recalculation starting later waits at
/// `holdCoveringChunks` until the job commits, then moves the finished chunk by its payslip's
/// difference; one of an employee outside every chunk writes outside this chunk's range (ranges
/// widen only under the exclusive locks, `coverStrayPayslips`). So at completion the chunk's
/// payslips in the written range are exactly the job's, and the probes show the rest is empty.
extension RunFinalizer {
    /// One part to complete: its chunk and the phase timings to store (already apportioned).
    public struct PartCompletion: Sendable, Hashable {
        public var runId: Int64
        public var chunkNo: Int32
        public var loadMicros: Int64
        public var computeMicros: Int64
        public var writeMicros: Int64
        public var shiftsLoaded: Int
        /// What the job wrote for this part, by direct COPY or plain insert from column arrays under the chunk's lock (nil: sum the
        /// stored payslips). Used only with `chunksLocked: true`.
        var written: WrittenChunkResult?
        /// The part's `finish_us`, stored by the completion statement itself (nil: NULL, unless
        /// `countAndFinalize` stores one). A packed job passes its finish phase up to that
        /// statement here, so that no second UPDATE of the part's `run_chunks` row is needed (a
        /// row updated twice in one transaction has its foreign key to `payroll_runs` checked again).
        public var finishMicros: Int64?

        public init(runId: Int64, chunkNo: Int32, loadMicros: Int64, computeMicros: Int64, writeMicros: Int64, shiftsLoaded: Int) {
            self.runId = runId
            self.chunkNo = chunkNo
            self.loadMicros = loadMicros
            self.computeMicros = computeMicros
            self.writeMicros = writeMicros
            self.shiftsLoaded = shiftsLoaded
        }
    }

    /// The completion statement (see the extension's comment). Parameters: $1 tenant; per part
    /// $2 run, $3 chunk, $4–$7 load/compute/write µs and shifts loaded, $8/$9 the lowest and
    /// highest employee written, $10–$17 the written counts and amounts (`WrittenChunkResult.values`;
    /// $10 = -1: not known, sum the stored payslips); $18 the written digests, 32 bytes per part
    /// in part order; $19 the parts' `finish_us` (-1: NULL). Returns ('c', run, chunk, 1 if the
    /// written totals were used else 0, 1 if finished for the first time else 0) per completed part
    /// and ('r', run, …) per run locked.
    static let completeChunksSQL = """
        WITH parts AS (
            SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[],
                                 $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[],
                                 $14::bigint[], $15::bigint[], $16::bigint[], $17::bigint[], $19::bigint[]) WITH ORDINALITY
                       AS u(run_id, chunk_no, load_us, compute_us, write_us, shifts_loaded, lo, hi,
                            ok, failed, warnings, gross, non_taxable, taxable, deductions, net, finish_us, n)),
             before AS (
            SELECT c.run_id, c.chunk_no, c.finished_at IS NULL AS first, k.known, p.load_us, p.compute_us, p.write_us, p.shifts_loaded,
                   nullif(p.finish_us, -1) AS finish_us,
                   CASE WHEN k.known THEN substring($18::bytea FROM (32 * p.n - 31)::int FOR 32) ELSE d.digest END AS digest,
                   CASE WHEN k.known THEN p.ok ELSE d.ok END AS ok, CASE WHEN k.known THEN p.failed ELSE d.failed END AS failed,
                   CASE WHEN k.known THEN p.warnings ELSE d.warnings END AS warnings,
                   CASE WHEN k.known THEN p.gross ELSE d.gross END AS gross,
                   CASE WHEN k.known THEN p.non_taxable ELSE d.non_taxable END AS non_taxable,
                   CASE WHEN k.known THEN p.taxable ELSE d.taxable END AS taxable,
                   CASE WHEN k.known THEN p.deductions ELSE d.deductions END AS deductions,
                   CASE WHEN k.known THEN p.net ELSE d.net END AS net
              FROM parts p
              JOIN payrun.run_chunks c ON c.tenant_id = $1 AND c.run_id = p.run_id AND c.chunk_no = p.chunk_no
             CROSS JOIN LATERAL (
                   SELECT p.ok >= 0 AND p.lo >= c.employee_id_from AND p.hi <= c.employee_id_to
                          AND NOT EXISTS (SELECT FROM payrun.payslips q
                                           WHERE q.tenant_id = c.tenant_id AND q.run_id = c.run_id
                                             AND q.employee_id >= c.employee_id_from AND q.employee_id < p.lo)
                          AND NOT EXISTS (SELECT FROM payrun.payslips q
                                           WHERE q.tenant_id = c.tenant_id AND q.run_id = c.run_id
                                             AND q.employee_id > p.hi AND q.employee_id <= c.employee_id_to)
                   OFFSET 0) AS k(known)
             CROSS JOIN LATERAL (\(chunkDigestSQL)
                   AND NOT k.known) AS d(digest, ok, failed, warnings, gross, non_taxable, taxable, deductions, net)),
             done AS (
            UPDATE payrun.run_chunks c
               SET input_digest = b.digest, employees_done = b.ok, employees_failed = b.failed,
                   warnings_count = b.warnings, gross_won = b.gross, non_taxable_won = b.non_taxable, taxable_won = b.taxable,
                   total_deductions_won = b.deductions, net_won = b.net, finished_at = now(),
                   load_us = b.load_us, compute_us = b.compute_us, write_us = b.write_us, finish_us = b.finish_us,
                   shifts_loaded = b.shifts_loaded
              FROM before b
             WHERE c.tenant_id = $1 AND c.run_id = b.run_id AND c.chunk_no = b.chunk_no
            RETURNING c.run_id, c.chunk_no, b.first, b.known),
             locked AS (
            SELECT r.id FROM payrun.payroll_runs r
             WHERE r.tenant_id = $1 AND r.id IN (SELECT run_id FROM done)
             ORDER BY r.id FOR NO KEY UPDATE)
        SELECT 'c', run_id, chunk_no::int, known::int, first::int FROM done
        UNION ALL
        SELECT 'r', id, NULL, NULL, NULL FROM locked
        """

    /// Completes `parts` (each at most once; any order) in the caller's transaction and returns
    /// the ids (ascending) of the runs this finalized: those whose every chunk is now finished and
    /// whose status allows finalization (two statements: `markPartsFinished`, `countAndFinalize`).
    /// `chunksLocked`: the caller took the parts' chunk locks (`lockChunksExclusively`) before it
    /// wrote their payslips; only then are the parts' `written` results used.
    public static func completeChunks(tenantId: Int64, parts: [PartCompletion], chunksLocked: Bool = false,
                                      on connection: PostgresConnection) throws -> [Int64] {
        let marked = try markPartsFinished(tenantId: tenantId, parts: parts, chunksLocked: chunksLocked, on: connection)
        return try countAndFinalize(tenantId: tenantId, firstFinished: marked.firstFinished, finishTimes: [], on: connection)
    }

    /// What `markPartsFinished` did: per run (ascending), how many of its parts were finished for
    /// the first time; and how many parts took the worker's totals (`written`) rather than their
    /// stored payslips' sums.
    struct MarkedParts: Sendable {
        var firstFinished: [(runId: Int64, count: Int64)]
        var writtenUsed: Int
    }

    /// Steps 0–1 and the runs' row locks of step 2 (`completeChunksSQL`, one statement).
    static func markPartsFinished(tenantId: Int64, parts: [PartCompletion], chunksLocked: Bool,
                                  on connection: PostgresConnection) throws -> MarkedParts {
        if parts.isEmpty { return MarkedParts(firstFinished: [], writtenUsed: 0) }
        var keys = Set<PartKey>()
        for part in parts where !keys.insert(PartKey(runId: part.runId, chunkNo: part.chunkNo)).inserted {
            throw PayrollStoreError(.invalidRequest, "chunk \(part.chunkNo) of run \(part.runId) is listed twice in one job")
        }
        // Without the caller's locks: take them first, in (run, chunk) order, then sum the payslips
        // in a new statement: a recalculation holding one of them (`holdCoveringChunks`) has
        // committed by then.
        if !chunksLocked { try lockChunksExclusively(chunks: parts.map { ($0.runId, $0.chunkNo) }, on: connection) }
        let written = parts.map { chunksLocked ? $0.written : nil }
        var digests: [UInt8] = []
        digests.reserveCapacity(32 * parts.count)
        for w in written {
            if let w, w.digest.count == 32 { digests += w.digest } else { digests += repeatElement(0, count: 32) }
        }
        let value = { (k: Int) in PostgresValue.int64Array(written.map { w in w.map { $0.digest.count == 32 ? $0.values[k] : -1 } ?? -1 }) }
        let rows = try connection.queryPrepared(completeChunksSQL, [
            .int(tenantId), .int64Array(parts.map(\.runId)), .int64Array(parts.map { Int64($0.chunkNo) }),
            .int64Array(parts.map(\.loadMicros)), .int64Array(parts.map(\.computeMicros)),
            .int64Array(parts.map(\.writeMicros)), .int64Array(parts.map { Int64($0.shiftsLoaded) }),
            .int64Array(written.map { $0?.lowestEmployeeId ?? 0 }), .int64Array(written.map { $0?.highestEmployeeId ?? 0 }),
        ] + (0..<8).map(value) + [.bytea(digests), .int64Array(parts.map { $0.finishMicros ?? -1 })])
        var found = Set<PartKey>()
        var locked = Set<Int64>()
        var firstFinished: [Int64: Int64] = [:]
        var writtenUsed = 0
        for row in rows {
            let runId = try row.int64(at: 1)
            if try row.string(at: 0) == "c" {
                found.insert(PartKey(runId: runId, chunkNo: try row.int32(at: 2)))
                writtenUsed += try row.int32(at: 3) == 1 ? 1 : 0
                firstFinished[runId, default: 0] += try row.int32(at: 4) == 1 ? 1 : 0
            } else {
                locked.insert(runId)
            }
        }
        if let missing = parts.first(where: { !found.contains(PartKey(runId: $0.runId, chunkNo: $0.chunkNo)) }) {
            throw PayrollStoreError(.notFound, "chunk \(missing.chunkNo) of run \(missing.runId) does not exist in tenant \(tenantId)")
        }
        if let missing = parts.first(where: { !locked.contains($0.runId) }) {
            throw PayrollStoreError(.notFound, "run \(missing.runId) does not exist in tenant \(tenantId)")
        }
        return MarkedParts(firstFinished: firstFinished.keys.sorted().map { ($0, firstFinished[$0] ?? 0) }, writtenUsed: writtenUsed)
    }

    /// Step 2's count and step 3, in one statement after `markPartsFinished` (which holds the runs'
    /// rows, so this statement's snapshot, taken later, sees every other job's chunks of them and
    /// the runs' newest rows): each run's `chunks_done` grows by its parts finished for the first
    /// time, and a run whose count reaches its total and whose status allows it is finalized from
    /// its chunks (`finalizeRunsSQL`'s values) in the same UPDATE — each run row is updated once
    /// per job (twice before: a second update of a row the transaction wrote also re-runs its
    /// foreign-key check). `finishTimes`: each part's `finish_us`, stored by the same statement.
    /// Returns the runs finalized, ascending.
    static func countAndFinalize(tenantId: Int64, firstFinished: [(runId: Int64, count: Int64)],
                                 finishTimes: [(runId: Int64, chunkNo: Int32, finishMicros: Int64)],
                                 on connection: PostgresConnection) throws -> [Int64] {
        if firstFinished.isEmpty && finishTimes.isEmpty { return [] }
        let counts: [PostgresValue] = [.int(tenantId), .int64Array(firstFinished.map(\.runId)), .int64Array(firstFinished.map(\.count))]
        let rows = finishTimes.isEmpty
            ? try connection.queryPrepared(countAndFinalizeSQL(storingFinishTimes: false), counts)
            : try connection.queryPrepared(countAndFinalizeSQL(storingFinishTimes: true), counts + [
                .int64Array(finishTimes.map(\.runId)), .int64Array(finishTimes.map { Int64($0.chunkNo) }),
                .int64Array(finishTimes.map(\.finishMicros)),
            ])
        if rows.count != firstFinished.count {
            let seen = Set(try rows.map { try $0.int64(at: 0) })
            let missing = firstFinished.first { !seen.contains($0.runId) }?.runId ?? -1
            throw PayrollStoreError(.notFound, "run \(missing) does not exist in tenant \(tenantId)")
        }
        return try rows.filter { try $0.bool(at: 1) }.map { try $0.int64(at: 0) }.sorted()
    }

    /// `countAndFinalize`'s statement: $1 tenant; $2 runs, $3 parts finished for the first time;
    /// with `storingFinishTimes`, $4–$6 finish times (run, chunk, µs) stored in `run_chunks` by the
    /// same statement (without: no `run_chunks` row is written). Returns (run, finalized).
    static func countAndFinalizeSQL(storingFinishTimes: Bool) -> String {
        storingFinishTimes ? countAndFinalizeStoringFinishTimesSQL : countAndFinalizeOnlySQL
    }

    private static let countAndFinalizeStoringFinishTimesSQL = """
        WITH finish AS (
            UPDATE payrun.run_chunks c SET finish_us = u.finish_us
              FROM unnest($4::bigint[], $5::bigint[], $6::bigint[]) AS u(run_id, chunk_no, finish_us)
             WHERE c.tenant_id = $1 AND c.run_id = u.run_id AND c.chunk_no = u.chunk_no),
        \(countAndFinalizeRunsSQL)
        """

    private static let countAndFinalizeOnlySQL = """
        WITH \(countAndFinalizeRunsSQL)
        """

    /// The CTEs after `WITH` and the UPDATE of the runs that both forms of `countAndFinalizeSQL` share.
    private static let countAndFinalizeRunsSQL = """
             s AS (
            SELECT u.id AS run_id, u.n,
                   \(runSumsOfChunksSQL)
              FROM unnest($2::bigint[], $3::bigint[]) AS u(id, n)
              LEFT JOIN payrun.run_chunks c ON c.tenant_id = $1 AND c.run_id = u.id
             GROUP BY u.id, u.n),
             d AS (
            SELECT s.*, r.chunks_done + s.n >= r.chunks_total
                        AND r.status IN (\(finalizableStatuses.sorted().map { "'\($0)'" }.joined(separator: ", "))) AS due
              FROM s JOIN payrun.payroll_runs r ON r.tenant_id = $1 AND r.id = s.run_id)
        UPDATE payrun.payroll_runs r
           SET chunks_done = r.chunks_done + d.n, updated_at = now(),
               status = CASE WHEN NOT d.due THEN r.status WHEN d.failed > 0 THEN 'calculated_with_errors' ELSE 'calculated' END,
               employees_total = CASE WHEN d.due THEN greatest(r.employees_total, d.ok + d.failed) ELSE r.employees_total END,
               employees_done = CASE WHEN d.due THEN d.ok ELSE r.employees_done END,
               employees_failed = CASE WHEN d.due THEN d.failed ELSE r.employees_failed END,
               warnings_count = CASE WHEN d.due THEN d.warnings ELSE r.warnings_count END,
               gross_won = CASE WHEN d.due THEN d.gross ELSE r.gross_won END,
               non_taxable_won = CASE WHEN d.due THEN d.non_taxable ELSE r.non_taxable_won END,
               taxable_won = CASE WHEN d.due THEN d.taxable ELSE r.taxable_won END,
               total_deductions_won = CASE WHEN d.due THEN d.deductions ELSE r.total_deductions_won END,
               net_won = CASE WHEN d.due THEN d.net ELSE r.net_won END,
               input_digest = CASE WHEN d.due THEN d.digest ELSE r.input_digest END,
               error = CASE WHEN d.due THEN NULL ELSE r.error END,
               calculated_at = CASE WHEN d.due THEN now() ELSE r.calculated_at END
          FROM d
         WHERE r.tenant_id = $1 AND r.id = d.run_id
        RETURNING r.id, d.due
        """

    /// The statuses from which a run whose chunks are all finished is finalized.
    static let finalizableStatuses: Set<String> = [PayrollRunStatus.calculating.rawValue, PayrollRunStatus.calculated.rawValue,
                                                   PayrollRunStatus.calculatedWithErrors.rawValue, PayrollRunStatus.failed.rawValue]

    private struct PartKey: Hashable {
        var runId: Int64
        var chunkNo: Int32
    }
}
