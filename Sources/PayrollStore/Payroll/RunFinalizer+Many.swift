import PostgresClient

extension RunFinalizer {
    /// `finalize` for several runs with one statement (a packed chunk job finalizing the runs whose
    /// last part it computed; `finalize(runId:)` is this with one run): status, counters, totals
    /// and digest per run, aggregated by run. Call in the transaction whose `completeChunk(…, finalizing: false)` returned true
    /// for each of them (it holds their rows since that UPDATE).
    public static func finalize(tenantId: Int64, runIds: [Int64], on connection: PostgresConnection) throws {
        if runIds.isEmpty { return }
        try connection.execute("""
            UPDATE payrun.payroll_runs r
               SET status = CASE WHEN s.failed > 0 THEN 'calculated_with_errors' ELSE 'calculated' END,
                   employees_total = greatest(r.employees_total, s.ok + s.failed),
                   employees_done = s.ok, employees_failed = s.failed, warnings_count = s.warnings,
                   gross_won = s.gross, non_taxable_won = s.non_taxable, taxable_won = s.taxable,
                   total_deductions_won = s.deductions, net_won = s.net,
                   input_digest = d.digest, error = NULL, calculated_at = now(), updated_at = now()
              FROM (SELECT u.id AS run_id,
                           count(p.employee_id) FILTER (WHERE p.error IS NULL) AS ok,
                           count(p.employee_id) FILTER (WHERE p.error IS NOT NULL) AS failed,
                           coalesce(sum(jsonb_array_length(p.warnings)), 0) AS warnings,
                           coalesce(sum(p.gross_won), 0) AS gross, coalesce(sum(p.non_taxable_won), 0) AS non_taxable,
                           coalesce(sum(p.taxable_won), 0) AS taxable, coalesce(sum(p.total_deductions_won), 0) AS deductions,
                           coalesce(sum(p.net_won), 0) AS net
                      FROM unnest($2::bigint[]) AS u(id)
                      LEFT JOIN payrun.payslips p ON p.tenant_id = $1 AND p.run_id = u.id
                     GROUP BY u.id) AS s,
                   (SELECT u.id AS run_id,
                           sha256(coalesce(string_agg(c.input_digest, ''::bytea ORDER BY c.chunk_no), ''::bytea)) AS digest
                      FROM unnest($2::bigint[]) AS u(id)
                      LEFT JOIN payrun.run_chunks c ON c.tenant_id = $1 AND c.run_id = u.id
                     GROUP BY u.id) AS d
             WHERE r.tenant_id = $1 AND r.id = s.run_id AND d.run_id = s.run_id
            """, [.int(tenantId), .int64Array(runIds)])
    }
}
