import Foundation
import PostgresClient
import Testing
@testable import PayrollStore

/// Migration 0017 folded the approved-run check of payslip inserts (0001) into the reference check
/// (0013, 0015) and counts a dense single-tenant statement's employees by one range scan. These
/// tests hold the merged trigger to what the two triggers refused, on each of its paths.
@Suite("Payslip insert check (0017)")
struct PayslipInsertCheckTests {
    typealias F = StoreFixture

    /// Tenant A's workplace gets employees `ids` (no payslips).
    private static func database(_ label: String, employees ids: [Int64]) throws -> PostgresConnection {
        let connection = try F.twoTenants(label)
        try connection.execute("""
            INSERT INTO payrun.employees (tenant_id, id, workplace_id, name)
            SELECT $1, e, $2, 'Bulk' FROM unnest($3::bigint[]) AS e
            """, [.int(F.tenantA), .int(F.workplaceA), .int64Array(ids)])
        return connection
    }

    /// One statement inserting an error payslip for each (tenant, run, employee).
    private static func insert(_ connection: PostgresConnection, _ rows: [(tenant: Int64, run: Int64, employee: Int64)]) throws {
        try connection.execute("""
            INSERT INTO payrun.payslips (tenant_id, run_id, employee_id, run_version, error)
            SELECT t, r, e, 1, '{"code": "x", "message": "y"}' FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(t, r, e)
            """, [.int64Array(rows.map(\.tenant)), .int64Array(rows.map(\.run)), .int64Array(rows.map(\.employee))])
    }

    private static func payslipCount(_ connection: PostgresConnection) throws -> Int64? {
        try connection.queryOne("SELECT count(*) FROM payrun.payslips WHERE employee_id >= 5000")?.int64(at: 0)
    }

    @Test("payslips has one AFTER INSERT trigger, the reference check; updates and deletes keep the approved-run triggers")
    func schema_oneInsertTrigger() throws {
        let connection = try F.migrated("insert_check_schema")
        let triggers = try connection.query("""
            SELECT tgname FROM pg_trigger WHERE tgrelid = 'payrun.payslips'::regclass AND NOT tgisinternal ORDER BY 1
            """).map { try $0.string(at: 0) }
        #expect(triggers == ["payslips_locked_on_delete", "payslips_locked_on_update",
                             "payslips_references_on_insert", "payslips_references_on_update"])
    }

    @Test("payslips of an approved run are refused on insert, one row or many, before a missing reference is reported")
    func approvedRun_insertIsRefused() throws {
        let connection = try Self.database("insert_check_approved", employees: Array(5_000..<5_010))
        try connection.execute("UPDATE payrun.payroll_runs SET status = 'approved', approved_at = now() WHERE id = $1", [.int(F.runA)])
        let one = #expect(throws: PostgresError.self) {
            try Self.insert(connection, [(F.tenantA, F.runA, 5_000)])
        }
        #expect(one?.kind == .checkViolation)
        #expect(one?.message.contains("payroll run \(F.runA) is approved (locked)") == true)
        // Many rows, one of them of an unknown employee (5010): the approved run is what is reported.
        let many = #expect(throws: PostgresError.self) {
            try Self.insert(connection, (5_000...5_010).map { (F.tenantA, F.runA, Int64($0)) })
        }
        #expect(many?.kind == .checkViolation)
        #expect(many?.message.contains("payroll run \(F.runA) is approved (locked)") == true)
        #expect(try Self.payslipCount(connection) == 0)
        // Tenant B's run is not approved: its inserts go on.
        try connection.execute("INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES ($1, 5100, $2, 'B')",
                               [.int(F.tenantB), .int(F.workplaceB)])
        try Self.insert(connection, [(F.tenantB, F.runB, 5_100)])
        #expect(try Self.payslipCount(connection) == 1)
    }

    @Test("a dense statement naming an unknown id between employees it does not reference is refused, naming that id")
    func denseRange_unknownIdAmongUnreferenced_isRefused() throws {
        // 5000…5003 exist; 5001 is not referenced, 5004 does not exist: the range [5000, 5004]
        // holds four employees, and the statement references four ids, but not the same ones.
        let connection = try Self.database("insert_check_dense", employees: [5_000, 5_001, 5_002, 5_003])
        let error = #expect(throws: PostgresError.self) {
            try Self.insert(connection, [5_000, 5_002, 5_003, 5_004].map { (F.tenantA, F.runA, $0) })
        }
        #expect(error?.kind == .foreignKeyViolation)
        #expect(error?.column == "employee_id")
        #expect(error?.message.contains("employee 5004 of tenant \(F.tenantA) does not exist") == true)
        #expect(try Self.payslipCount(connection) == 0)
        try Self.insert(connection, [5_000, 5_002, 5_003].map { (F.tenantA, F.runA, $0) })
        #expect(try Self.payslipCount(connection) == 3)
    }

    @Test("a dense statement naming another tenant's employee is refused")
    func denseRange_otherTenantsEmployee_isRefused() throws {
        let connection = try Self.database("insert_check_tenant", employees: [5_000, 5_001])
        try connection.execute("INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES ($1, 5002, $2, 'B')",
                               [.int(F.tenantB), .int(F.workplaceB)])
        let error = #expect(throws: PostgresError.self) {
            try Self.insert(connection, [5_000, 5_001, 5_002].map { (F.tenantA, F.runA, $0) })
        }
        #expect(error?.kind == .foreignKeyViolation)
        #expect(error?.message.contains("employee 5002 of tenant \(F.tenantA) does not exist") == true)
        #expect(try Self.payslipCount(connection) == 0)
    }

    @Test("sparse ids and several tenants in one statement take the per-tenant count and still refuse an unknown employee")
    func sparseAndMultiTenant_unknownEmployee_isRefused() throws {
        let connection = try Self.database("insert_check_sparse", employees: [5_000, 5_050, 900_000])
        try connection.execute("INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES ($1, 5100, $2, 'B')",
                               [.int(F.tenantB), .int(F.workplaceB)])
        // Sparse: ids 895,001 apart for 3 rows.
        let sparse = #expect(throws: PostgresError.self) {
            try Self.insert(connection, [5_000, 900_000, 900_001].map { (F.tenantA, F.runA, $0) })
        }
        #expect(sparse?.kind == .foreignKeyViolation)
        #expect(sparse?.message.contains("employee 900001 of tenant \(F.tenantA) does not exist") == true)
        // Two tenants: tenant B's run with an employee that exists only in tenant A.
        let tenants = #expect(throws: PostgresError.self) {
            try Self.insert(connection, [(F.tenantA, F.runA, 5_000), (F.tenantB, F.runB, 900_000)])
        }
        #expect(tenants?.kind == .foreignKeyViolation)
        #expect(tenants?.message.contains("employee 900000 of tenant \(F.tenantB) does not exist") == true)
        #expect(try Self.payslipCount(connection) == 0)
        // The same paths store rows whose references exist.
        try Self.insert(connection, [5_050, 900_000].map { (F.tenantA, F.runA, $0) })
        try Self.insert(connection, [(F.tenantA, F.runA, 5_000), (F.tenantB, F.runB, 5_100)])
        #expect(try Self.payslipCount(connection) == 4)
    }
}

/// 0017 rewrote the rule_set CHECK without a regex: the same strings pass, under the same name.
@Suite("Payslip rule_set check (0017)")
struct PayslipRuleSetCheckTests {
    typealias F = StoreFixture

    /// Strings around the format `kr-YYYY.MM`: wrong letters, lengths, separators, non-ASCII digits,
    /// whitespace, regex metacharacters.
    static let candidates = [
        "kr-2026.10", "kr-0000.00", "kr-9999.99", "kr-2026.1", "kr-2026.100", "kr-20260.10", "kr-202.10",
        "KR-2026.10", "kr_2026.10", "kr-2026-10", "kr-2026,10", "kr-2026.1x", "kr-x026.10", "kr-2026.10 ",
        " kr-2026.10", "kr-2026.10\n", "kr-２０２６.10", "kr-٢٠٢٦.10", "kr-2026.１0",
        "", "kr-", "kr-....-..", "kr-0000000", "kr-2026.1.", "kr-2026..0", "kr-2026.\\d", "kr-[0-9].10", "kr-2026.1 ",
    ]

    @Test("the rewritten check accepts exactly the strings 0001's regex accepted")
    func sameStringsAsTheRegex() throws {
        let connection = try F.migrated("rule_set_same")
        // The stored CHECK expression, evaluated on each string as the column's value.
        let expression = try #require(try connection.queryOne("""
            SELECT pg_get_expr(conbin, conrelid) FROM pg_constraint
             WHERE conrelid = 'payrun.payslips'::regclass AND conname = 'payslips_rule_set_check'
            """)?.string(at: 0))
        #expect(!expression.contains(" ~ ") && !expression.contains("~*"))  // no regex (0018: LIKE, shown as ~~)
        #expect(expression.contains("rule_set"))
        let onValue = expression.replacingOccurrences(of: "rule_set", with: "s.rule_set")
        // Every candidate and 2,000 random strings over the format's alphabet and a few others.
        let differing = try connection.queryOne("""
            WITH s(rule_set) AS (
                SELECT unnest($1::text[])
                UNION ALL
                SELECT string_agg(substr('kr-.0123456789 x９', 1 + floor(random() * 18)::int, 1), '')
                  FROM generate_series(1, 2000) AS g, generate_series(1, 10) AS c GROUP BY g
                UNION ALL
                SELECT 'kr-' || lpad(floor(random() * 10000)::int::text, 4, '0') || '.' || lpad(floor(random() * 100)::int::text, 2, '0')
                  FROM generate_series(1, 200))
            SELECT count(*) FILTER (WHERE (s.rule_set ~ '^kr-[0-9]{4}\\.[0-9]{2}$') IS DISTINCT FROM (\(onValue))),
                   count(*) FILTER (WHERE s.rule_set ~ '^kr-[0-9]{4}\\.[0-9]{2}$')
              FROM s
            """, [.textArray(Self.candidates)])
        #expect(try differing?.int64(at: 0) == 0)
        #expect(try (differing?.int64(at: 1) ?? 0) >= 203)  // the three valid candidates and the 200 generated
    }

    @Test("a payslip with a malformed rule_set is refused, naming payslips_rule_set_check; a well-formed one is stored")
    func malformedRuleSet_isRefused() throws {
        let connection = try F.twoTenants("rule_set_refused")
        for bad in ["kr-2026.1x", "kr-2026.100", "KR-2026.10", "kr-２０２６.10", "kr-2026.10\n", ""] {
            let error = #expect(throws: PostgresError.self) {
                try connection.execute("UPDATE payrun.payslips SET rule_set = $1 WHERE employee_id = $2", [.text(bad), .int(F.employeeA)])
            }
            #expect(error?.kind == .checkViolation)
            #expect(error?.constraint == "payslips_rule_set_check")
        }
        try connection.execute("UPDATE payrun.payslips SET rule_set = 'kr-2027.01' WHERE employee_id = $1", [.int(F.employeeA)])
        #expect(try connection.queryOne("SELECT rule_set FROM payrun.payslips WHERE employee_id = $1", [.int(F.employeeA)])?.string(at: 0) == "kr-2027.01")
    }
}
