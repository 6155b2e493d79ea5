import PostgresClient

/// Payslips of several runs at once (a packed chunk job): the same two paths as `write`, with one
/// COPY for all the runs' rows (each row carries its own run id and version).
extension PayslipWriter {
    /// Writes each group's payslips for its run; returns the rows written and the path taken.
    @discardableResult
    public static func write(runs groups: [(run: PayrollRun, payslips: [ComputedPayslip])], stagingKey: StagingKey,
                             on connection: PostgresConnection) throws -> (rows: Int, path: Path) {
        let groups = groups.filter { !$0.payslips.isEmpty }
        if groups.isEmpty { return (0, .none) }
        if groups.count == 1, let only = groups.first {
            return try writeReportingPath(only.payslips, run: only.run, stagingKey: stagingKey, on: connection)
        }
        let total = groups.reduce(0) { $0 + $1.payslips.count }
        try reserveCaptureMemory(on: connection)
        if try !directCopyRuledOut(groups, on: connection), try copyDirect(groups, on: connection) { return (total, .direct) }
        return (try replace(groups, stagingKey: stagingKey, on: connection), .replacement)
    }

    /// Whether the direct COPY cannot be used (one statement): a group's run has a payslip in the
    /// id range of the group's payslips, or row-level security is active on `payslips` for the
    /// writing role — PostgreSQL refuses COPY FROM into such a table, so a worker that is a plain
    /// member of `payrun_worker` always takes the staging path (0012).
    static func directCopyRuledOut(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], on connection: PostgresConnection) throws -> Bool {
        guard let tenantId = groups.first?.run.tenantId else { return true }
        var runIds: [Int64] = [], lows: [Int64] = [], highs: [Int64] = []
        for g in groups {
            guard let first = g.payslips.first else { continue }
            var lowest = first.employeeId, highest = first.employeeId
            for p in g.payslips { lowest = min(lowest, p.employeeId); highest = max(highest, p.employeeId) }
            runIds.append(g.run.id); lows.append(lowest); highs.append(highest)
        }
        // One index probe per run (LATERAL … LIMIT 1 is not flattened into a join): with statistics
        // taken while a large month-end fills `payslips`, the join had been hashed over all of a
        // tenant's payslips for every job (see RunFinalizer.finalize(tenantId:runIds:)). Prepared:
        // parsed and planned once per connection rather than for every job; row_security_active is
        // evaluated at each execution, and a change of role replans the statement (the plan cache
        // keeps the user a plan's row-security quals were made for).
        return try connection.queryOnePrepared("""
            SELECT row_security_active('payrun.payslips')
                OR EXISTS (SELECT 1 FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u(run_id, id_from, id_to),
                                  LATERAL (SELECT 1 FROM payrun.payslips p
                                            WHERE p.tenant_id = $1 AND p.run_id = u.run_id
                                              AND p.employee_id BETWEEN u.id_from AND u.id_to LIMIT 1) AS hit)
            """, [.int(tenantId), .int64Array(runIds), .int64Array(lows), .int64Array(highs)])?.bool(at: 0) ?? true
    }

    /// COPY straight into `payslips` inside a savepoint; false (nothing written) on a unique violation.
    static func copyDirect(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], on connection: PostgresConnection) throws -> Bool {
        try connection.execute("SAVEPOINT payslips_direct")
        do {
            try connection.copyIn("COPY payrun.payslips (\(payslipColumns)) FROM STDIN (FORMAT binary)") { writer in
                // By index, in place (`for p in g.payslips` copied each payslip: its arrays and texts
                // retained and released).
                for g in groups.indices {
                    let run = groups[g].run
                    try groups[g].payslips.withUnsafeBufferPointer { payslips in
                        for j in payslips.indices { try writer.row { r in encode(payslips.baseAddress.unsafelyUnwrapped + j, run: run, into: &r) } }
                    }
                }
            }
        } catch let error as PostgresError where error.sqlState == "23505" {
            try connection.execute("ROLLBACK TO SAVEPOINT payslips_direct")
            try connection.execute("RELEASE SAVEPOINT payslips_direct")
            return false
        }
        try connection.execute("RELEASE SAVEPOINT payslips_direct")
        return true
    }

    /// The replacement path for several runs: one staging COPY, one upsert, one cleanup.
    static func replace(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], stagingKey: StagingKey,
                        on connection: PostgresConnection) throws -> Int {
        guard let tenantId = groups.first?.run.tenantId else { return 0 }
        try connection.copyIn("COPY payrun.payslip_staging (lease_token, \(payslipColumns)) FROM STDIN (FORMAT binary)") { writer in
            for g in groups.indices {
                let run = groups[g].run
                try groups[g].payslips.withUnsafeBufferPointer { payslips in
                    for j in payslips.indices {
                        try writer.row { r in
                            r.bytea(stagingKey.bytes)
                            encode(payslips.baseAddress.unsafelyUnwrapped + j, run: run, into: &r)
                        }
                    }
                }
            }
        }
        let key = PostgresValue.text(stagingKey.description)
        let moved = try connection.execute("""
            INSERT INTO payrun.payslips AS p (\(payslipColumns))
            SELECT \(payslipColumns) FROM payrun.payslip_staging WHERE lease_token = $1::uuid AND tenant_id = $2
            \(upsertClause)
            """, [key, .int(tenantId)]).affectedRowCount ?? 0
        try connection.execute("DELETE FROM payrun.payslip_staging WHERE lease_token = $1::uuid", [key])
        return moved
    }
}
