import PostgresClient

/// Keeping each finished chunk's totals equal to its payslips' (migration 0016) when payslips
/// change outside a chunk job: a recalculation moves the covering chunk by the payslip's
/// difference, and a payslip in no chunk's employee-id range (an employee hired or moved to the
/// workplace after planning) widens the nearest chunk, so every payslip of a run is in exactly
/// one chunk and `finalize` — a sum over the chunks — misses none.
extension RunFinalizer {
    /// One payslip's change of its run's counts and totals: new minus old
    /// (`PayslipTotals.deltaValues`: done, failed, warnings, gross, non-taxable, taxable,
    /// total deductions, net).
    struct PayslipChange {
        var employeeId: Int64
        var delta: [Int64]
    }

    /// Class of the transaction-level advisory locks that order chunk completion against
    /// recalculations (key 2: `chunkLockKeySQL`). 0015 uses 1885434226 for tenants' employees.
    static let chunkLockClass: Int32 = 1_885_434_227

    /// The second key of a chunk's advisory lock, from `c.run_id` and `c.chunk_no` (a collision
    /// of two chunks only makes one wait for the other).
    static let chunkLockKeySQL = "hashint8(c.run_id # (c.chunk_no::bigint << 40))"

    /// Takes, shared and in chunk order, the advisory locks of the run's chunks whose ranges cover
    /// any of `employeeIds`. A recalculation calls this before it reads the payslips it replaces;
    /// chunk completion takes its chunks' locks exclusively before it sums their payslips
    /// (`lockChunksExclusively`). So either the completion waits for the recalculation to commit
    /// and then sums its payslip too, or the recalculation waits for the completion, then sees the
    /// chunk finished with the payslip it replaces counted, and moves it by the difference.
    /// Recalculations do not wait for each other here (the chunk rows they move at the end are
    /// held only from that update to their commit, like the run's row).
    static func holdCoveringChunks(tenantId: Int64, runId: Int64, employeeIds: [Int64], on connection: PostgresConnection) throws {
        if employeeIds.isEmpty { return }
        _ = try connection.queryPrepared("""
            SELECT pg_advisory_xact_lock_shared(\(chunkLockClass), s.key)
              FROM (SELECT \(chunkLockKeySQL) AS key FROM payrun.run_chunks c
                     WHERE c.tenant_id = $1 AND c.run_id = $2
                       AND EXISTS (SELECT FROM unnest($3::bigint[]) AS e(id) WHERE e.id BETWEEN c.employee_id_from AND c.employee_id_to)
                     ORDER BY c.chunk_no OFFSET 0) AS s
            """, [.int(tenantId), .int(runId), .int64Array(employeeIds)])
    }

    /// Takes the advisory locks of the given chunks exclusively, in (run, chunk) order: chunk
    /// completion, before it sums the chunks' payslips (see `holdCoveringChunks`).
    /// The keys are run and chunk numbers only: run ids are unique across tenants.
    static func lockChunksExclusively(chunks: [(runId: Int64, chunkNo: Int32)], on connection: PostgresConnection) throws {
        if chunks.isEmpty { return }
        _ = try connection.queryPrepared("""
            SELECT pg_advisory_xact_lock(\(chunkLockClass), s.key)
              FROM (SELECT \(chunkLockKeySQL) AS key FROM unnest($1::bigint[], $2::bigint[]) AS c(run_id, chunk_no)
                     ORDER BY c.run_id, c.chunk_no OFFSET 0) AS s
            """, [.int64Array(chunks.map(\.runId)), .int64Array(chunks.map { Int64($0.chunkNo) })])
    }

    /// Moves every finished chunk covering one of `changes` by the sum of its changes (locking
    /// those chunk rows in chunk order first, so recalculations of several chunks cannot
    /// deadlock) and returns
    /// how many of `changes` some chunk covers, finished or not — fewer than `changes.count` means
    /// a payslip lies outside every chunk: call `coverStrayPayslips`. An unfinished chunk needs
    /// nothing: its completion sums its payslips. In the caller's transaction, after
    /// `holdCoveringChunks` and the payslips' writing.
    static func moveChunkTotals(tenantId: Int64, runId: Int64, changes: [PayslipChange],
                                on connection: PostgresConnection) throws -> Int {
        if changes.isEmpty { return 0 }
        precondition(changes.allSatisfy { $0.delta.count == 8 }, "a payslip change has 8 values")
        let column = { (k: Int) in PostgresValue.int64Array(changes.map { $0.delta[k] }) }
        let row = try connection.queryOnePrepared("""
            WITH d AS (
                SELECT * FROM unnest($3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
                                     $9::bigint[], $10::bigint[], $11::bigint[])
                           AS d(employee_id, done, failed, warnings, gross, non_taxable, taxable, deductions, net)),
                 m AS (
                SELECT c.chunk_no, c.finished_at IS NOT NULL AS finished, count(*) AS covered,
                       sum(d.done) AS done, sum(d.failed) AS failed, sum(d.warnings) AS warnings, sum(d.gross) AS gross,
                       sum(d.non_taxable) AS non_taxable, sum(d.taxable) AS taxable, sum(d.deductions) AS deductions,
                       sum(d.net) AS net
                  FROM d JOIN payrun.run_chunks c
                    ON c.tenant_id = $1 AND c.run_id = $2 AND d.employee_id BETWEEN c.employee_id_from AND c.employee_id_to
                 GROUP BY c.chunk_no, c.finished_at),
                 l AS (
                SELECT c.chunk_no FROM payrun.run_chunks c
                 WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.chunk_no IN (SELECT chunk_no FROM m WHERE finished)
                 ORDER BY c.chunk_no FOR NO KEY UPDATE),
                 u AS (
                UPDATE payrun.run_chunks c
                   SET employees_done = c.employees_done + m.done, employees_failed = c.employees_failed + m.failed,
                       warnings_count = c.warnings_count + m.warnings, gross_won = c.gross_won + m.gross,
                       non_taxable_won = c.non_taxable_won + m.non_taxable, taxable_won = c.taxable_won + m.taxable,
                       total_deductions_won = c.total_deductions_won + m.deductions, net_won = c.net_won + m.net
                  FROM m JOIN l USING (chunk_no)
                 WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.chunk_no = m.chunk_no AND c.finished_at IS NOT NULL)
            SELECT coalesce(sum(covered), 0)::bigint FROM m
            """, [.int(tenantId), .int(runId), .int64Array(changes.map(\.employeeId))] + (0..<8).map(column))
        return Int(try row?.int64(at: 0) ?? 0)
    }

    /// Widens chunks so that every payslip of the run lies in one: a payslip between two chunks'
    /// ranges (or after the last) extends the chunk before it, one before the first chunk extends
    /// the first. Chunks are numbered in employee-id order and their ranges do not overlap, so
    /// neither does any widened range. A run with payslips but no chunk at all (planned empty,
    /// then an employee hired) gets a chunk 0 over them, finished, counted in the run's
    /// `chunks_total` and `chunks_done`. Every widened or added chunk that is finished gets its
    /// digest, counts and totals from its payslips again. Returns the chunk numbers touched.
    /// Reads all the run's payslips: for the rare recalculation of an employee outside every
    /// chunk, and approval.
    @discardableResult
    static func coverStrayPayslips(tenantId: Int64, runId: Int64, on connection: PostgresConnection) throws -> [Int32] {
        // No chunk of the run completes while its range moves and its totals are summed again.
        let chunks = try connection.query("SELECT c.chunk_no FROM payrun.run_chunks c WHERE c.tenant_id = $1 AND c.run_id = $2",
                                          [.int(tenantId), .int(runId)]).map { (runId: runId, chunkNo: try $0.int32(at: 0)) }
        try lockChunksExclusively(chunks: chunks, on: connection)
        var touched = try connection.query("""
            WITH chunks AS (
                SELECT c.chunk_no, c.employee_id_from, c.employee_id_to,
                       lead(c.employee_id_from) OVER (ORDER BY c.chunk_no) AS next_from,
                       c.chunk_no = min(c.chunk_no) OVER () AS first
                  FROM payrun.run_chunks c WHERE c.tenant_id = $1 AND c.run_id = $2),
                 stray AS (
                SELECT p.employee_id FROM payrun.payslips p
                 WHERE p.tenant_id = $1 AND p.run_id = $2
                   AND NOT EXISTS (SELECT FROM chunks c WHERE p.employee_id BETWEEN c.employee_id_from AND c.employee_id_to)),
                 target AS (
                SELECT c.chunk_no, min(s.employee_id) AS lo, max(s.employee_id) AS hi
                  FROM stray s JOIN chunks c
                    ON (s.employee_id > c.employee_id_to AND (c.next_from IS NULL OR s.employee_id < c.next_from))
                    OR (c.first AND s.employee_id < c.employee_id_from)
                 GROUP BY c.chunk_no)
            UPDATE payrun.run_chunks c
               SET employee_id_from = least(c.employee_id_from, t.lo), employee_id_to = greatest(c.employee_id_to, t.hi)
              FROM target t
             WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.chunk_no = t.chunk_no
            RETURNING c.chunk_no
            """, [.int(tenantId), .int(runId)]).map { try $0.int32(at: 0) }
        var added = false
        if touched.isEmpty {
            added = try connection.query("""
                INSERT INTO payrun.run_chunks (tenant_id, run_id, chunk_no, employee_id_from, employee_id_to, employees_planned)
                SELECT $1, $2, 0, min(p.employee_id), max(p.employee_id), 0
                  FROM payrun.payslips p WHERE p.tenant_id = $1 AND p.run_id = $2
                HAVING count(*) > 0 AND NOT EXISTS (SELECT FROM payrun.run_chunks c WHERE c.tenant_id = $1 AND c.run_id = $2)
                RETURNING chunk_no
                """, [.int(tenantId), .int(runId)]).count == 1
            if added { touched = [0] }
        }
        if touched.isEmpty { return [] }
        try connection.execute("""
            UPDATE payrun.run_chunks c SET (\(chunkResultColumns)) = (\(chunkDigestSQL)), finished_at = coalesce(c.finished_at, now())
             WHERE c.tenant_id = $1 AND c.run_id = $2 AND c.chunk_no = ANY($3::int[]) AND (c.finished_at IS NOT NULL OR $4)
            """, [.int(tenantId), .int(runId), .int64Array(touched.map { Int64($0) }), .bool(added)])
        if added {
            try connection.execute("""
                UPDATE payrun.payroll_runs SET chunks_total = chunks_total + 1, chunks_done = chunks_done + 1, updated_at = now()
                 WHERE tenant_id = $1 AND id = $2
                """, [.int(tenantId), .int(runId)])
        }
        return touched.sorted()
    }
}
