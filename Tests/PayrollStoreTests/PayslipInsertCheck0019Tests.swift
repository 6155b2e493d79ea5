import PostgresClient
import Testing
@testable import PayrollStore

/// Migration 0019 checks the employees of a dense one-tenant insert as `referenced ids EXCEPT the
/// range's ids` (empty = all exist). These cases hold it to 0017's answers where a set difference
/// could differ from the counts it replaced: the same employee in two runs of one statement, and a
/// range holding employees the statement does not reference.
@Suite("Payslip insert check (0019)")
struct PayslipInsertCheck0019Tests {
    typealias F = StoreFixture
    static let secondRun: Int64 = 1_399

    /// Tenant A gets employees 5000…5009 and a second run (October) besides `F.runA` (November).
    private static func database(_ label: String) throws -> PostgresConnection {
        let connection = try F.twoTenants(label)
        try connection.execute("""
            INSERT INTO payrun.employees (tenant_id, id, workplace_id, name)
            SELECT $1, e, $2, 'Bulk' FROM generate_series(5000, 5009) AS e
            """, [.int(F.tenantA), .int(F.workplaceA)])
        try connection.execute("""
            INSERT INTO payrun.payroll_runs (tenant_id, id, workplace_id, period_start, period_end, pay_date, size_class)
            VALUES ($1, $2, $3, '2026-10-01', '2026-10-31', '2026-11-10', 'five_or_more')
            """, [.int(F.tenantA), .int(secondRun), .int(F.workplaceA)])
        return connection
    }

    /// One statement inserting an error payslip for each (run, employee) of tenant A.
    private static func insert(_ connection: PostgresConnection, _ rows: [(run: Int64, employee: Int64)]) throws {
        try connection.execute("""
            INSERT INTO payrun.payslips (tenant_id, run_id, employee_id, run_version, error)
            SELECT $1, r, e, 1, '{"code": "x", "message": "y"}' FROM unnest($2::bigint[], $3::bigint[]) AS u(r, e)
            """, [.int(F.tenantA), .int64Array(rows.map(\.run)), .int64Array(rows.map(\.employee))])
    }

    private static func payslipCount(_ connection: PostgresConnection) throws -> Int64? {
        try connection.queryOne("SELECT count(*) FROM payrun.payslips WHERE employee_id >= 5000")?.int64(at: 0)
    }

    @Test("a dense statement naming each employee in two runs is stored when all exist and refused, naming the id, when one does not")
    func sameEmployeesInTwoRuns() throws {
        let connection = try Self.database("insert_check_0019_two_runs")
        let ids: [Int64] = [5_000, 5_001, 5_002, 5_003, 5_010]
        let refused = #expect(throws: PostgresError.self) {
            try Self.insert(connection, ids.map { (F.runA, $0) } + ids.map { (Self.secondRun, $0) })
        }
        #expect(refused?.kind == .foreignKeyViolation)
        #expect(refused?.column == "employee_id")
        #expect(refused?.message.contains("employee 5010 of tenant \(F.tenantA) does not exist") == true)
        #expect(try Self.payslipCount(connection) == 0)
        let existing = ids.filter { $0 != 5_010 }
        try Self.insert(connection, existing.map { (F.runA, $0) } + existing.map { (Self.secondRun, $0) })
        #expect(try Self.payslipCount(connection) == 8)
    }

    @Test("a dense statement is stored when the range holds employees it does not name, and refused when it names a gap between them")
    func rangeWithUnreferencedEmployees() throws {
        let connection = try Self.database("insert_check_0019_gaps")
        try connection.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = 5005", [.int(F.tenantA)])
        // 5005 no longer exists; 5004 and 5006 do and are not named.
        let refused = #expect(throws: PostgresError.self) {
            try Self.insert(connection, [5_000, 5_002, 5_005, 5_008].map { (F.runA, $0) })
        }
        #expect(refused?.kind == .foreignKeyViolation)
        #expect(refused?.message.contains("employee 5005 of tenant \(F.tenantA) does not exist") == true)
        #expect(try Self.payslipCount(connection) == 0)
        try Self.insert(connection, [5_000, 5_002, 5_008, 5_009].map { (F.runA, $0) })
        #expect(try Self.payslipCount(connection) == 4)
    }
}
