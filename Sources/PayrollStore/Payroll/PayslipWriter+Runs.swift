import PostgresClient

/// Payslips of several runs at once (a packed chunk job): the same paths as `write`, with one
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
        return try writeMany(groups, stagingKey: stagingKey, on: connection)
    }

    /// The multi-row paths (see `PayslipWriter`) for non-empty groups: the direct COPY where no
    /// payslip of the groups' ranges exists and row-level security does not apply; otherwise the
    /// rows are staged, then inserted plainly (no payslip exists) or upserted.
    static func writeMany(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], stagingKey: StagingKey,
                          on connection: PostgresConnection) throws -> (rows: Int, path: Path) {
        guard let tenantId = groups.first?.run.tenantId else { return (0, .none) }
        let total = groups.reduce(0) { $0 + $1.payslips.count }
        try reserveCaptureMemory(on: connection)
        let check = try firstCalculationCheck(groups, on: connection)
        // Under row-level security, where no payslip was found in the ranges: a plain insert of the
        // staged rows, which a payslip appearing meanwhile turns into a unique violation, then the
        // upsert (as a failed direct COPY goes straight to the upsert).
        var insertsPlainly = false
        if !check.payslipsExist {
            if !check.rowSecurityActive {
                if try copyDirect(groups, on: connection) { return (total, .direct) }
            } else {
                insertsPlainly = true
            }
        }
        let table = try stage(groups, stagingKey: stagingKey, on: connection)
        let key = PostgresValue.text(stagingKey.description)
        let inserted = insertsPlainly ? try insertStaged(from: table, key: key, tenantId: tenantId, on: connection) : nil
        let rows = try inserted ?? moveStaged(from: table, key: key, tenantId: tenantId, upsert: true, on: connection)
        try connection.execute("DELETE FROM \(table) WHERE lease_token = $1::uuid", [key])
        return (rows, inserted == nil ? .replacement : .staged)
    }

    /// Whether a payslip exists in a group's id range for its run (then each row must be
    /// upserted), and whether row-level security applies to the writing role on `payslips` —
    /// PostgreSQL refuses COPY FROM into such a table, so a worker that is a plain member of
    /// `payrun_worker` stages its rows (0012).
    static func firstCalculationCheck(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])],
                                      on connection: PostgresConnection) throws -> (payslipsExist: Bool, rowSecurityActive: Bool) {
        guard let tenantId = groups.first?.run.tenantId else { return (true, true) }
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
        guard let row = try connection.queryOnePrepared("""
            SELECT EXISTS (SELECT 1 FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u(run_id, id_from, id_to),
                                  LATERAL (SELECT 1 FROM payrun.payslips p
                                            WHERE p.tenant_id = $1 AND p.run_id = u.run_id
                                              AND p.employee_id BETWEEN u.id_from AND u.id_to LIMIT 1) AS hit),
                   row_security_active('payrun.payslips')
            """, [.int(tenantId), .int64Array(runIds), .int64Array(lows), .int64Array(highs)]) else { return (true, true) }
        return (try row.bool(at: 0), try row.bool(at: 1))
    }

    /// COPY straight into `payslips` inside a savepoint; false (nothing written) on a unique violation.
    static func copyDirect(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], on connection: PostgresConnection) throws -> Bool {
        try unlessUniqueViolation(savepoint: "payslips_direct", on: connection) {
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
        } != nil
    }

    /// `body` inside the savepoint `name`: its value, or nil when it failed with a unique
    /// violation (a payslip already there; the savepoint rolled back, the transaction usable).
    static func unlessUniqueViolation<T>(savepoint name: String, on connection: PostgresConnection,
                                         _ body: () throws -> T) throws -> T? {
        try connection.execute("SAVEPOINT \(name)")
        let value: T
        do {
            value = try body()
        } catch let error as PostgresError where error.sqlState == "23505" {
            try connection.execute("ROLLBACK TO SAVEPOINT \(name)")
            try connection.execute("RELEASE SAVEPOINT \(name)")
            return nil
        }
        try connection.execute("RELEASE SAVEPOINT \(name)")
        return value
    }

    /// The table rows are staged in: the session's temporary `pg_temp.payslip_staging`, created
    /// here when the session has none yet (also again after a rolled-back transaction dropped it),
    /// or the shared unlogged `payrun.payslip_staging` where the role may not create temporary
    /// tables. Why a table of the session's own: in the shared one, every staged row a chunk job
    /// moved and deleted stays behind as a dead row until VACUUM, and every later job's move
    /// scanned them all. A month-end by a `payrun_worker` member at 100,000 employees spent
    /// ≈ 2.6 of its server's CPU-seconds so (benchmarks/RESULTS.md, session 16). The temporary
    /// table lives in the backend's local buffers, writes no WAL, and `ON COMMIT DELETE ROWS`
    /// empties its file at each commit. Outside a transaction block (each statement its own
    /// transaction) that would empty it between the COPY and the move: the shared table then.
    static func stagingTable(on connection: PostgresConnection) throws -> String {
        let local = "pg_temp.payslip_staging", shared = "payrun.payslip_staging"
        guard connection.isInTransaction else { return shared }
        guard let row = try connection.queryOnePrepared("""
            SELECT to_regclass('\(local)') IS NOT NULL, has_database_privilege(current_database(), 'TEMPORARY')
            """) else { return shared }
        if try row.bool(at: 0) { return local }
        guard try row.bool(at: 1) else { return shared }
        try connection.execute("CREATE TEMPORARY TABLE payslip_staging (LIKE \(shared)) ON COMMIT DELETE ROWS")
        return local
    }

    /// COPYs every group's rows into the staging table under `stagingKey`; returns the table.
    static func stage(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], stagingKey: StagingKey,
                      on connection: PostgresConnection) throws -> String {
        let table = try stagingTable(on: connection)
        try connection.copyIn("COPY \(table) (lease_token, \(payslipColumns)) FROM STDIN (FORMAT binary)") { writer in
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
        return table
    }

    /// Moves the rows staged under `key` into `payslips`: upserted, or inserted plainly.
    static func moveStaged(from table: String, key: PostgresValue, tenantId: Int64, upsert: Bool,
                           on connection: PostgresConnection) throws -> Int {
        try connection.execute("""
            INSERT INTO payrun.payslips AS p (\(payslipColumns))
            SELECT \(payslipColumns) FROM \(table) WHERE lease_token = $1::uuid AND tenant_id = $2
            \(upsert ? upsertClause : "")
            """, [key, .int(tenantId)]).affectedRowCount ?? 0
    }

    /// The plain insert of the staged rows inside a savepoint; nil (nothing inserted, the staged
    /// rows still there) on a unique violation.
    static func insertStaged(from table: String, key: PostgresValue, tenantId: Int64,
                             on connection: PostgresConnection) throws -> Int? {
        try unlessUniqueViolation(savepoint: "payslips_staged", on: connection) {
            try moveStaged(from: table, key: key, tenantId: tenantId, upsert: false, on: connection)
        }
    }
}
