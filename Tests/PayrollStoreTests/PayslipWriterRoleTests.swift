import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// `payrun_payslip_writer` (0022): the BYPASSRLS role a worker under row-level security COPYs a
/// first calculation's payslips as. What stands in for the policy it bypasses is the insert
/// trigger's tenant check; what the role may do besides is nothing.
@Suite("COPY as payrun_payslip_writer")
struct PayslipWriterRoleTests {
    typealias F = PayrollDataFixture

    /// The fixture's chunk computed as the owner (any role computes the same rows).
    static func computedGroups(_ c: PostgresConnection) throws -> [(run: PayrollRun, payslips: [ComputedPayslip])] {
        let (run, payslips) = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            return try MonthEndFastPathTests.computed(c)
        }
        return [(run: run, payslips: payslips)]
    }

    /// `copyDirect` as the writer, in a transaction as `payrun_worker` scoped to `tenant` (nil: none).
    static func copyAsWriter(_ groups: [(run: PayrollRun, payslips: [ComputedPayslip])], tenant: Int64?,
                             on c: PostgresConnection) throws -> (copied: Bool, roleAfter: String) {
        try StoreFixture.asRole("payrun_worker", tenant: tenant, on: c) { c in
            let copied = try PayslipWriter.copyDirect(groups, asWriterRestoring: "payrun_worker", on: c)
            return (copied, try #require(try c.queryOne("SELECT current_user::text")?.string(at: 0)))
        }
    }

    @Test("rows of another tenant than the transaction's, or with no tenant set, are refused (42501) and nothing is stored")
    func otherTenantsRowsAreRefused() throws {
        let c = try F.migrated("writer_role_tenant_check")
        try F.seed(c)
        let groups = try Self.computedGroups(c)
        for tenant in [F.otherTenant, nil] as [Int64?] {
            #expect {
                _ = try Self.copyAsWriter(groups, tenant: tenant, on: c)
            } throws: { error in
                guard let e = error as? PostgresError, e.sqlState == "42501" else { return false }
                return e.message.contains("tenant scope of table \"payslips\"")
            }
            #expect(try MonthEndFastPathTests.storedRows(c).isEmpty)
        }
        // The transaction's own tenant: stored, and the transaction is back to payrun_worker.
        let done = try Self.copyAsWriter(groups, tenant: F.tenant, on: c)
        #expect(done.copied && done.roleAfter == "payrun_worker")
        #expect(try MonthEndFastPathTests.storedRows(c).count == 2)
        #expect(try MonthEndFastPathTests.revisions(c) == [1, 1])
        // The check applies to the writer role only: the owner (bypassing nothing, but not
        // switching roles) with no tenant set writes as before.
        try c.execute("DELETE FROM payrun.payslips")
        #expect(try c.transaction { c in try PayslipWriter.copyDirect(groups, on: c) })
        #expect(try MonthEndFastPathTests.storedRows(c).count == 2)
    }

    @Test("a payslip already there: the savepoint rolls back, the role is switched back and the same rows are upserted under the policy")
    func uniqueViolationSwitchesBack() throws {
        let c = try F.migrated("writer_role_fallback")
        try F.seed(c)
        let groups = try Self.computedGroups(c)
        let role = try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c) { c -> String in
            // A recalculation got there first for the monthly employee.
            #expect(try PayslipWriter.write([groups[0].payslips[1]], run: groups[0].run, on: c) == 1)
            #expect(try PayslipWriter.copyDirect(groups, asWriterRestoring: "payrun_worker", on: c) == false)
            let role = try #require(try c.queryOne("SELECT current_user::text")?.string(at: 0))
            #expect(try PayslipWriter.write(runs: groups, on: c).path == .replacement)
            return role
        }
        #expect(role == "payrun_worker")
        #expect(try MonthEndFastPathTests.revisions(c) == [1, 2])
    }

    @Test("the writer role may insert payslips and nothing else: no reads, updates or deletes, no other table")
    func writerRoleHasOnlyInsert() throws {
        let c = try F.migrated("writer_role_privileges")
        try F.seed(c)
        let role = try #require(try c.queryOne("""
            SELECT rolbypassrls, rolcanlogin, pg_has_role('payrun_worker', oid, 'MEMBER')
              FROM pg_roles WHERE rolname = 'payrun_payslip_writer'
            """))
        #expect(try role.bool(at: 0) && !role.bool(at: 1) && role.bool(at: 2))
        for statement in [
            "SELECT count(*) FROM payrun.payslips",
            "UPDATE payrun.payslips SET revision = revision",
            "DELETE FROM payrun.payslips",
            "SELECT count(*) FROM payrun.employees",
            "SELECT count(*) FROM payrun.payroll_runs",
            "INSERT INTO payrun.jobs (kind, payload) VALUES ('sleep', '{}')",
        ] {
            #expect(Comment(rawValue: statement)) {
                try c.transaction { c in
                    try TenantScope.set(F.tenant, on: c)
                    try c.execute("SET LOCAL ROLE payrun_payslip_writer")
                    try c.execute(statement)
                }
            } throws: { ($0 as? PostgresError)?.sqlState == "42501" }
        }
    }

    @Test("a worker logging in as a member of payrun_worker COPYs its first calculation and stays itself afterwards")
    func loginMemberCopies() throws {
        let url = try StoreTestDatabase.createEmpty("writer_role_login")
        let c = try PostgresConnection(url: url)
        defer { c.close() }
        try Migrator().migrate(c)
        try F.seed(c)
        // A login role of this cluster (roles are cluster-wide: made once, kept for later runs).
        let login = "payrun_test_worker_login"
        try c.execute("""
            DO $$ BEGIN
                CREATE ROLE \(login) LOGIN IN ROLE payrun_worker;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END $$
            """)
        // libpq takes the last of a URI's user and its `user` query parameter.
        let worker = try PostgresConnection(url: url + (url.contains("?") ? "&" : "?") + "user=" + login)
        defer { worker.close() }
        let (path, roleAfter, sessionUser) = try worker.transaction { w in
            try TenantScope.set(F.tenant, on: w)
            let (run, payslips) = try MonthEndFastPathTests.computed(w)
            let path = try PayslipWriter.writeReportingPath(payslips, run: run, on: w).path
            let row = try #require(try w.queryOne("SELECT current_user::text, session_user::text, row_security_active('payrun.payslips')"))
            #expect(try row.bool(at: 2))
            return (path, try row.string(at: 0), try row.string(at: 1))
        }
        #expect(path == .direct)
        #expect(roleAfter == login && sessionUser == login)
        #expect(try MonthEndFastPathTests.storedRows(c).count == 2)
    }
}
