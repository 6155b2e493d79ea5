import PostgresClient

/// Payslips of several runs at once (a packed chunk job): the same paths as `write`, with one
/// COPY or one INSERT for all the runs' rows (each row carries its own run id and version).
extension PayslipWriter {
    /// Writes each group's payslips for its run; returns the rows written and the path taken.
    @discardableResult
    public static func write(runs groups: [(run: PayrollRun, payslips: [ComputedPayslip])],
                             on connection: PostgresConnection) throws -> (rows: Int, path: Path) {
        let groups = groups.filter { !$0.payslips.isEmpty }
        if groups.isEmpty { return (0, .none) }
        if groups.count == 1, let only = groups.first {
            return try writeReportingPath(only.payslips, run: only.run, on: connection)
        }
        return try writeMany(groups, on: connection)
    }

    /// The multi-row paths (see `PayslipWriter`) for non-empty groups: the direct COPY where no
    /// payslip of the groups' ranges exists and row-level security does not apply, or applies and
    /// the session may COPY as `payrun_payslip_writer`; the plain INSERT of the rows' column arrays
    /// where none exists under row-level security otherwise; else (or when a payslip appeared
    /// meanwhile: a unique violation) the upsert of the same arrays.
    static func writeMany(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])],
                          on connection: PostgresConnection) throws -> (rows: Int, path: Path) {
        let total = groups.reduce(0) { $0 + $1.payslips.count }
        try reserveCaptureMemory(on: connection)
        let check = try firstCalculationCheck(groups, on: connection)
        if !check.payslipsExist && !check.rowSecurityActive {
            if try copyDirect(groups, on: connection) { return (total, .direct) }
        }
        if !check.payslipsExist && check.rowSecurityActive, let role = check.roleToRestore {
            if try copyDirect(groups, asWriterRestoring: role, on: connection) { return (total, .direct) }
        }
        let columns = columnArrays(groups)
        if !check.payslipsExist && check.rowSecurityActive {
            if let rows = try unlessUniqueViolation(savepoint: "payslips_inserted", on: connection, {
                try insert(columns, upsert: false, on: connection)
            }) {
                return (rows, .inserted)
            }
        }
        return (try insert(columns, upsert: true, on: connection), .replacement)
    }

    /// `payslipColumns`' types in order: the SQL name, the type OID and its array type's OID.
    static let payslipColumnTypes: [(name: String, element: UInt32, array: UInt32)] = {
        let int8 = (name: "int8", element: PostgresTypeOID.int8, array: PostgresTypeOID.int8Array)
        let int4 = (name: "int4", element: PostgresTypeOID.int4, array: PostgresTypeOID.int4Array)
        let text = (name: "text", element: PostgresTypeOID.text, array: PostgresTypeOID.textArray)
        let bytea = (name: "bytea", element: PostgresTypeOID.bytea, array: PostgresTypeOID.byteaArray)
        let json = (name: "json", element: PostgresTypeOID.json, array: PostgresTypeOID.jsonArray)
        let jsonb = (name: "jsonb", element: PostgresTypeOID.jsonb, array: PostgresTypeOID.jsonbArray)
        return [int8, int8, int8, int4, text, bytea] + Array(repeating: int4, count: 9) + Array(repeating: int8, count: 5)
            + [json, json, jsonb, jsonb]
    }()

    /// Every group's rows as `encode` writes them, a column at a time: one binary array parameter
    /// per column of `payslipColumns` (`BinaryCopyRowBuffer.columnArrays`).
    static func columnArrays(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])]) -> [PostgresValue] {
        let rows = BinaryCopyRowBuffer(initialCapacityBytes: 1 << 20)
        for g in groups { encodeRows(g.payslips, run: g.run, into: rows) }
        let types = payslipColumnTypes
        return zip(rows.columnArrays(elementTypes: types.map(\.element)), types).map { .binary(type: $1.array, bytes: $0) }
    }

    /// The rows of `columns` (`columnArrays`) inserted into `payslips` by one statement, `unnest`
    /// turning the arrays back into rows: plainly, or upserted. Prepared: the same text each time.
    ///
    /// Until session 17 these rows were COPYed into a staging table first (the session's temporary
    /// `pg_temp.payslip_staging`, or the shared `payrun.payslip_staging`), then moved by
    /// `INSERT … SELECT` and deleted: the COPY filled pages the move read back, each new page of
    /// the temporary table was written to its file when the table grew, and each commit truncated
    /// it again. The arrays carry the same binary fields (and the server validates the JSON as it
    /// receives them, as it did for the COPY). perf of a 100,000-employee month-end as
    /// `payrun_worker` put the staging's own work (the COPY's inserts into the temporary table, its
    /// file growing page by page, the move's scan, the truncation) at ≈ 7 % of the server's
    /// samples, and `array_recv` and `unnest` at ≈ 5 % now; alternated month-ends could not tell
    /// the two apart beyond this VM's noise (benchmarks/RESULTS.md, session 17). What it removes
    /// for sure: the scratch table, its TEMP privilege and cleanup, and two of a rerun's three
    /// statements.
    static func insert(_ columns: [PostgresValue], upsert: Bool, on connection: PostgresConnection) throws -> Int {
        try connection.executePrepared(upsert ? upsertFromArraysSQL : insertFromArraysSQL, columns).affectedRowCount ?? 0
    }

    /// The plain insert and the upsert of `insert`, written once.
    static let insertFromArraysSQL: String = {
        let arrays = payslipColumnTypes.enumerated().map { "$\($0.offset + 1)::\($0.element.name)[]" }.joined(separator: ", ")
        return "INSERT INTO payrun.payslips AS p (\(payslipColumns))\nSELECT * FROM unnest(\(arrays))"
    }()
    static let upsertFromArraysSQL = insertFromArraysSQL + "\n" + upsertClause

    /// Whether a payslip exists in a group's id range for its run (then each row must be
    /// upserted), and whether row-level security applies to the writing role on `payslips` —
    /// PostgreSQL refuses COPY FROM into such a table. If it does and the session may COPY as
    /// `payrun_payslip_writer` (0022: the role exists with BYPASSRLS and INSERT on `payslips`,
    /// and the session's user is a member — production workers are, through `payrun_worker`),
    /// `roleToRestore` is the current role setting (`none`: the session user), to switch back to
    /// after the COPY; otherwise nil, and such a worker inserts its rows from column arrays (`insert`).
    static func firstCalculationCheck(
        _ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], on connection: PostgresConnection
    ) throws -> (payslipsExist: Bool, rowSecurityActive: Bool, roleToRestore: String?) {
        guard let tenantId = groups.first?.run.tenantId else { return (true, true, nil) }
        var runIds: [Int64] = [], lows: [Int64] = [], highs: [Int64] = []
        for g in groups {
            guard let first = g.payslips.first else { continue }
            var lowest = first.employeeId, highest = first.employeeId
            for p in g.payslips { lowest = min(lowest, p.employeeId); highest = max(highest, p.employeeId) }
            runIds.append(g.run.id); lows.append(lowest); highs.append(highest)
        }
        // One index probe per run (LATERAL … LIMIT 1 is not flattened into a join): with statistics
        // taken while a large month-end fills `payslips`, the join had been hashed over all of a
        // tenant's payslips for every job (see RunFinalizer.finalize(tenantId:runIds:)).
        // Not prepared: planned at each execution, for the table as it is then. A session's cached
        // generic plan, made while `payslips` was empty (a new database, or after a TRUNCATE), is a
        // sequential scan, and was kept while a month-end filled the table: each job then read
        // every payslip written so far (a worker's second 100k bench month-end: 2.98 → 6.3–14.3 s,
        // server 4.2 → 9.6–25.2 CPU-s). Planning it costs ≈ 0.25 ms per job (EXPLAIN, 100k store).
        guard let row = try connection.queryOne("""
            SELECT EXISTS (SELECT 1 FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u(run_id, id_from, id_to),
                                  LATERAL (SELECT 1 FROM payrun.payslips p
                                            WHERE p.tenant_id = $1 AND p.run_id = u.run_id
                                              AND p.employee_id BETWEEN u.id_from AND u.id_to LIMIT 1) AS hit),
                   row_security_active('payrun.payslips'), \(writerRoleToRestoreSQL)
              \(writerRoleFromSQL)
            """, [.int(tenantId), .int64Array(runIds), .int64Array(lows), .int64Array(highs)]) else { return (true, true, nil) }
        return (try row.bool(at: 0), try row.bool(at: 1), try row.decode(String?.self, at: 2))
    }

    /// The current role setting if the session may COPY as `payrun_payslip_writer` (the role
    /// exists with BYPASSRLS and INSERT on `payslips`, and the session's user is a member), else
    /// NULL: a select list item over `writerRoleFromSQL`. With no such role its functions get NULL
    /// and say NULL; it reads only catalogs every role may read.
    static let writerRoleToRestoreSQL = """
        CASE WHEN w.rolbypassrls AND pg_has_role(session_user, w.oid, 'MEMBER')
                  AND has_table_privilege(w.oid, 'payrun.payslips', 'INSERT')
             THEN current_setting('role') END
        """
    static let writerRoleFromSQL = "FROM (SELECT 1) AS one LEFT JOIN pg_catalog.pg_roles w ON w.rolname = 'payrun_payslip_writer'"

    /// How `connection`'s session writes a first calculation's payslips (when no payslip is there
    /// yet): whether row-level security applies to it on `payslips`, and if so whether it COPYs
    /// them as `payrun_payslip_writer` (else it inserts them from column arrays). For the worker's
    /// start-up line and the bench's report.
    public static func firstCalculationPath(on connection: PostgresConnection) throws -> (rowSecurityActive: Bool, asWriterRole: Bool) {
        guard let row = try connection.queryOne(
            "SELECT row_security_active('payrun.payslips'), (\(writerRoleToRestoreSQL)) IS NOT NULL \(writerRoleFromSQL)")
        else { return (true, false) }
        let rowSecurityActive = try row.bool(at: 0), writerRoleUsable = try row.bool(at: 1)
        return (rowSecurityActive, rowSecurityActive && writerRoleUsable)
    }

    /// The statements a superuser would run so that workers under row-level security COPY their
    /// payslips as `payrun_payslip_writer` (what migration 0022 does when a superuser migrates);
    /// empty when the role is in place, or when the database has no `payrun.payslips` yet.
    public static func writerRoleSetupStatements(on connection: PostgresConnection) throws -> [String] {
        guard let row = try connection.queryOne("""
            SELECT to_regclass('payrun.payslips') IS NOT NULL, w.oid IS NOT NULL, coalesce(w.rolbypassrls, false),
                   coalesce(has_schema_privilege(w.oid, 'payrun', 'USAGE'), false),
                   w.oid IS NOT NULL AND to_regclass('payrun.payslips') IS NOT NULL
                       AND has_table_privilege(w.oid, 'payrun.payslips', 'INSERT'),
                   coalesce(pg_has_role('payrun_worker', w.oid, 'MEMBER'), false)
              \(writerRoleFromSQL)
            """), try row.bool(at: 0) else { return [] }
        var statements: [String] = []
        if !(try row.bool(at: 1)) {
            statements.append("CREATE ROLE payrun_payslip_writer NOLOGIN BYPASSRLS;")
        } else if !(try row.bool(at: 2)) {
            statements.append("ALTER ROLE payrun_payslip_writer BYPASSRLS;")
        }
        if !(try row.bool(at: 3)) { statements.append("GRANT USAGE ON SCHEMA payrun TO payrun_payslip_writer;") }
        if !(try row.bool(at: 4)) { statements.append("GRANT INSERT ON payrun.payslips TO payrun_payslip_writer;") }
        if !(try row.bool(at: 5)) { statements.append("GRANT payrun_payslip_writer TO payrun_worker;") }
        return statements
    }

    /// COPY straight into `payslips` inside a savepoint; false (nothing written) on a unique violation.
    /// With `role` (a session under row-level security that may use `payrun_payslip_writer`,
    /// `firstCalculationCheck`): the COPY runs as that role, switched to with `SET LOCAL ROLE` in
    /// the savepoint's round trip and back to `role` in the release's (a rolled-back savepoint
    /// switches back by itself; so does the transaction's end on any other error). The insert
    /// trigger holds such rows to the transaction's tenant (0022).
    static func copyDirect(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], asWriterRestoring role: String? = nil,
                           on connection: PostgresConnection) throws -> Bool {
        var enter: String?, leave: String?
        if let role {
            enter = "SET LOCAL ROLE payrun_payslip_writer"
            leave = "SET LOCAL ROLE " + (role == "none" ? "NONE" : try PostgresIdentifier.quoted(role))
        }
        return try unlessUniqueViolation(savepoint: "payslips_direct", entering: enter, leaving: leave, on: connection) {
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
    /// `entering` runs right after the savepoint is set and `leaving` right before it is released
    /// (each in the same round trip); a rollback to the savepoint undoes what `entering` set.
    static func unlessUniqueViolation<T>(savepoint name: String, entering: String? = nil, leaving: String? = nil,
                                         on connection: PostgresConnection, _ body: () throws -> T) throws -> T? {
        if let entering { try connection.executeScript("SAVEPOINT \(name); \(entering)") } else { try connection.execute("SAVEPOINT \(name)") }
        let value: T
        do {
            value = try body()
        } catch let error as PostgresError where error.sqlState == "23505" {
            try connection.execute("ROLLBACK TO SAVEPOINT \(name)")
            try connection.execute("RELEASE SAVEPOINT \(name)")
            return nil
        }
        if let leaving { try connection.executeScript("\(leaving); RELEASE SAVEPOINT \(name)") } else { try connection.execute("RELEASE SAVEPOINT \(name)") }
        return value
    }
}
