import PostgresClient

extension RunFinalizer {
    /// A run's counts, totals and digest summed over its `run_chunks` rows `c` (grouped by run):
    /// the select list that `finalizeRunsSQL` and `countAndFinalizeSQL` share.
    static let runSumsOfChunksSQL = """
        coalesce(sum(c.employees_done), 0) AS ok, coalesce(sum(c.employees_failed), 0) AS failed,
        coalesce(sum(c.warnings_count), 0) AS warnings,
        coalesce(sum(c.gross_won), 0) AS gross, coalesce(sum(c.non_taxable_won), 0) AS non_taxable,
        coalesce(sum(c.taxable_won), 0) AS taxable, coalesce(sum(c.total_deductions_won), 0) AS deductions,
        coalesce(sum(c.net_won), 0) AS net,
        sha256(coalesce(string_agg(c.input_digest, ''::bytea ORDER BY c.chunk_no), ''::bytea)) AS digest
        """

    /// The UPDATE of `finalize(tenantId:runIds:)`: $1 tenant, $2 run ids.
    static let finalizeRunsSQL = """
        UPDATE payrun.payroll_runs r
           SET status = CASE WHEN s.failed > 0 THEN 'calculated_with_errors' ELSE 'calculated' END,
               employees_total = greatest(r.employees_total, s.ok + s.failed),
               employees_done = s.ok, employees_failed = s.failed, warnings_count = s.warnings,
               gross_won = s.gross, non_taxable_won = s.non_taxable, taxable_won = s.taxable,
               total_deductions_won = s.deductions, net_won = s.net,
               input_digest = s.digest, error = NULL, calculated_at = now(), updated_at = now()
          FROM (SELECT u.id AS run_id,
                       \(runSumsOfChunksSQL)
                  FROM unnest($2::bigint[]) AS u(id)
                  LEFT JOIN payrun.run_chunks c ON c.tenant_id = $1 AND c.run_id = u.id
                 GROUP BY u.id) AS s
         WHERE r.tenant_id = $1 AND r.id = s.run_id
        """

    /// `finalize` for several runs with one statement (a packed chunk job finalizing the runs whose
    /// last part it computed; `finalize(runId:)` is this with one run): status, counters, totals
    /// and digest per run, summed over its `run_chunks` rows (each finished chunk holds its
    /// payslips' counts and totals, migration 0016), so the cost is a few primary-key rows per run
    /// and the plan does not depend on `payslips`' statistics. Call in the transaction whose
    /// `completeChunk(…, finalizing: false)` returned true for each of them (it holds their rows
    /// since that UPDATE); every chunk of each run must be finished.
    public static func finalize(tenantId: Int64, runIds: [Int64], on connection: PostgresConnection) throws {
        if runIds.isEmpty { return }
        try connection.executePrepared(finalizeRunsSQL, [.int(tenantId), .int64Array(runIds)])
    }
}
