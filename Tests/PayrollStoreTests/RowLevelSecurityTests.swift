import PostgresClient
import Testing
@testable import PayrollStore

/// A transaction scoped to tenant A reads and writes nothing of tenant B.
@Suite("Row-level security")
struct RowLevelSecurityTests {
    let connection: PostgresConnection
    typealias F = StoreFixture

    /// Tables with tenant rows, and the tenant column of each.
    static let tenantTables: [(table: String, tenantColumn: String)] = [
        ("tenants", "id"), ("workplaces", "tenant_id"), ("workplace_holidays", "tenant_id"),
        ("employees", "tenant_id"), ("contracts", "tenant_id"), ("shifts", "tenant_id"),
        ("absences", "tenant_id"), ("payroll_runs", "tenant_id"), ("payslips", "tenant_id"),
        ("payslip_staging", "tenant_id"), ("pending_corrections", "tenant_id"), ("jobs", "tenant_id"),
        ("run_chunks", "tenant_id"),  // 0008
    ]

    init() throws {
        connection = try StoreFixture.twoTenants("rls")
        try connection.execute(
            "INSERT INTO payrun.jobs (kind, tenant_id, dedup_key) VALUES ('employee.recalc', $1, 'a'), ('employee.recalc', $2, 'b')",
            [.int(F.tenantA), .int(F.tenantB)])
    }

    /// (rows visible, rows of another tenant among them) for `table`.
    private func visibleRows(_ table: String, _ tenantColumn: String, in connection: PostgresConnection, tenant: Int64?) throws -> (Int, Int) {
        let row = try connection.queryOne(
            "SELECT count(*), count(*) FILTER (WHERE \(tenantColumn) IS DISTINCT FROM $1) FROM payrun.\(table)",
            [.int(tenant)])
        return (try row?.int(at: 0) ?? -1, try row?.int(at: 1) ?? -1)
    }

    @Test("every table with a tenant column has row-level security enabled and forced, but the workers' transaction-local payslip_staging (0012)")
    func everyTenantTable_forcesRowLevelSecurity() throws {
        let rows = try connection.query(
            """
            SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'payrun' AND c.relkind = 'r'
               AND (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
                    OR c.relname = 'tenants')
             ORDER BY 1
            """)
        let names = try rows.map { try $0.string(at: 0) }
        #expect(Set(names) == Set(Self.tenantTables.map(\.table)))
        for row in rows {
            let name = try row.string(at: 0)
            if name == "payslip_staging" {
                // COPY FROM is refused under row-level security; its rows never outlive the chunk
                // job's transaction and only workers may touch it.
                #expect(try !row.bool(at: 1), "payslip_staging: row-level security is off since 0012")
                let backend = try connection.queryOne(
                    "SELECT has_table_privilege('payrun_backend', 'payrun.payslip_staging', 'SELECT, INSERT, UPDATE, DELETE')")
                #expect(try backend?.bool(at: 0) == false, "payrun_backend must have no privilege on payslip_staging")
                continue
            }
            #expect(try row.bool(at: 1), "\(name): row-level security must be enabled")
            #expect(try row.bool(at: 2), "\(name): row-level security must be forced")
        }
    }

    @Test("as payrun_backend scoped to tenant A, selects see only A's rows")
    func backend_scopedToA_seesOnlyA() throws {
        try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
            for (table, column) in Self.tenantTables where table != "payslip_staging" {
                let (visible, foreign) = try visibleRows(table, column, in: connection, tenant: F.tenantA)
                #expect(foreign == 0, "\(table): tenant B's rows must be invisible")
                if ["tenants", "workplaces", "employees", "contracts", "shifts", "payroll_runs", "payslips", "jobs"].contains(table) {
                    #expect(visible > 0, "\(table): tenant A's rows must be visible")
                }
            }
            // Even naming tenant B explicitly finds nothing.
            let named = try connection.query("SELECT id FROM payrun.employees WHERE tenant_id = $1", [.int(F.tenantB)])
            #expect(named.isEmpty)
        }
    }

    @Test("as payrun_backend scoped to tenant A, inserting a row for tenant B fails")
    func backend_scopedToA_cannotInsertForB() throws {
        let employee = #expect(throws: PostgresError.self) {
            try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
                try connection.execute("INSERT INTO payrun.employees (tenant_id, workplace_id, name) VALUES ($1, $2, 'Intruder')",
                                       [.int(F.tenantB), .int(F.workplaceB)])
            }
        }
        #expect(employee?.kind == .insufficientPrivilege)
        let shift = #expect(throws: PostgresError.self) {
            try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
                try connection.execute(
                    "INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at) VALUES ($1, $2, '2026-11-20 09:00+09', '2026-11-20 10:00+09')",
                    [.int(F.tenantB), .int(F.employeeB)])
            }
        }
        #expect(shift?.kind == .insufficientPrivilege)
        // Moving one of A's rows to B is a write for B too.
        let move = #expect(throws: PostgresError.self) {
            try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
                try connection.execute("UPDATE payrun.workplaces SET tenant_id = $1 WHERE id = $2", [.int(F.tenantB), .int(F.workplaceA)])
            }
        }
        #expect(move?.kind == .insufficientPrivilege)
        // The same insert for A works.
        try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
            try connection.execute("INSERT INTO payrun.employees (tenant_id, workplace_id, name) VALUES ($1, $2, 'New hire')",
                                   [.int(F.tenantA), .int(F.workplaceA)])
        }
    }

    @Test("as payrun_backend scoped to tenant A, updating or deleting B's rows affects none")
    func backend_scopedToA_cannotUpdateOrDeleteB() throws {
        let before = try tenantBFingerprint()
        try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
            let updated = try connection.query("UPDATE payrun.employees SET name = 'Hacked' WHERE tenant_id = $1 RETURNING id", [.int(F.tenantB)])
            #expect(updated.isEmpty)
            let updatedAll = try connection.query("UPDATE payrun.shifts SET break_minutes = 0 RETURNING tenant_id")
            #expect(try updatedAll.allSatisfy { try $0.int64(at: 0) == F.tenantA })
            let deleted = try connection.query("DELETE FROM payrun.shifts WHERE tenant_id = $1 RETURNING id", [.int(F.tenantB)])
            #expect(deleted.isEmpty)
            let deletedContracts = try connection.query("DELETE FROM payrun.contracts WHERE employee_id = $1 RETURNING id", [.int(F.employeeB)])
            #expect(deletedContracts.isEmpty)
        }
        #expect(try tenantBFingerprint() == before)
    }

    @Test("with no tenant set nothing is visible and nothing can be written")
    func noTenantSet_seesNothing() throws {
        for role in ["payrun_backend", "payrun_worker"] {
            try F.asRole(role, tenant: nil, on: connection) { connection in
                for (table, column) in Self.tenantTables {
                    if role == "payrun_worker" && (table == "jobs" || table == "tenants") { continue }
                    if role == "payrun_backend" && table == "payslip_staging" { continue }  // no privilege at all
                    let (visible, _) = try visibleRows(table, column, in: connection, tenant: nil)
                    #expect(visible == 0, "\(role) with no tenant sees \(visible) rows of \(table)")
                }
            }
        }
        let insert = #expect(throws: PostgresError.self) {
            try F.asRole("payrun_backend", tenant: nil, on: connection) { connection in
                try connection.execute("INSERT INTO payrun.employees (tenant_id, workplace_id, name) VALUES ($1, $2, 'Nobody')",
                                       [.int(F.tenantA), .int(F.workplaceA)])
            }
        }
        #expect(insert?.kind == .insufficientPrivilege)
    }

    @Test("the tenant setting lasts one transaction only")
    func tenantSetting_isPerTransaction() throws {
        try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { _ in }
        try connection.transaction { connection in
            try connection.execute("SET LOCAL ROLE payrun_backend")
            let row = try connection.queryOne("SELECT payrun.current_tenant_id() IS NULL, count(*) FROM payrun.employees")
            #expect(try row?.bool(at: 0) == true)
            #expect(try row?.int(at: 1) == 0)
        }
    }

    @Test("payrun_worker claims jobs of every tenant but reads and writes tenant data of its tenant only")
    func worker_seesAllJobs_butOnlyItsTenantsData() throws {
        try F.asRole("payrun_worker", tenant: nil, on: connection) { connection in
            let jobs = try connection.queryOne("SELECT count(DISTINCT tenant_id) FROM payrun.jobs")
            #expect(try jobs?.int(at: 0) == 2)
            let claimed = try connection.query(
                """
                UPDATE payrun.jobs SET state = 'running', lease_token = gen_random_uuid(), leased_until = now() + interval '1 minute',
                       attempts = attempts + 1
                 WHERE state = 'pending' RETURNING tenant_id
                """)
            #expect(claimed.count == 2)
        }
        try F.asRole("payrun_worker", tenant: F.tenantA, on: connection) { connection in
            let (_, foreign) = try visibleRows("payslips", "tenant_id", in: connection, tenant: F.tenantA)
            #expect(foreign == 0)
            let replaced = try connection.query("UPDATE payrun.payslips SET revision = revision + 1 RETURNING tenant_id")
            #expect(try replaced.map { try $0.int64(at: 0) } == [F.tenantA])
        }
        let write = #expect(throws: PostgresError.self) {
            try F.asRole("payrun_worker", tenant: F.tenantA, on: connection) { connection in
                try F.insertPayslip(connection, tenant: F.tenantB, run: F.runB, employee: F.employeeB)
            }
        }
        #expect(write?.kind == .insufficientPrivilege)
        // Workers read inputs but do not edit them.
        let edit = #expect(throws: PostgresError.self) {
            try F.asRole("payrun_worker", tenant: F.tenantA, on: connection) { connection in
                try connection.execute("UPDATE payrun.shifts SET break_minutes = 0")
            }
        }
        #expect(edit?.kind == .insufficientPrivilege)
    }

    /// Everything of tenant B, read as the superuser, as one string.
    private func tenantBFingerprint() throws -> String {
        var parts: [String] = []
        for table in ["employees", "contracts", "shifts", "payslips", "payroll_runs"] {
            let row = try connection.queryOne(
                "SELECT coalesce(string_agg(t::text, '|' ORDER BY t::text), '') FROM payrun.\(table) t WHERE tenant_id = $1",
                [.int(F.tenantB)])
            parts.append(try row?.string(at: 0) ?? "")
        }
        return parts.joined(separator: "\n")
    }
}
