import Foundation
import PostgresClient
import Testing
@testable import PayrollStore

/// Migration 0013 replaced payslips' two per-row foreign keys by per-statement checks, and 0015
/// replaced the employee row locks of a READ COMMITTED insert by a per-tenant advisory interlock
/// with employee deletions: these tests hold the replacement to everything the foreign keys
/// guaranteed, including under concurrency.
@Suite("Payslip references (0013, 0015)")
struct PayslipReferenceTests {
    typealias F = StoreFixture

    /// A second employee of tenant A, without payslips.
    private static let spareEmployee: Int64 = 1299

    private static func database(_ label: String) throws -> (connection: PostgresConnection, url: String) {
        let database = try F.twoTenantsWithURL(label)
        try database.connection.execute(
            "INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES ($1, $2, $3, 'Spare')",
            [.int(F.tenantA), .int(spareEmployee), .int(F.workplaceA)])
        return database
    }

    @Test("the built-in foreign keys of payslips are gone and the statement triggers are in place")
    func schema_hasTriggersNotForeignKeys() throws {
        let connection = try Self.database("refs_schema").connection
        let foreignKeys = try connection.queryOne(
            "SELECT count(*) FROM pg_constraint WHERE conrelid = 'payrun.payslips'::regclass AND contype = 'f'")?.int64(at: 0)
        #expect(foreignKeys == 0)
        let triggers = try connection.query("""
            SELECT tgrelid::regclass::text || '.' || tgname FROM pg_trigger
             WHERE NOT tgisinternal AND tgname LIKE '%references%' ORDER BY 1
            """).map { try $0.string(at: 0) }
        #expect(triggers == [
            "payrun.employees.payslip_references_on_delete", "payrun.employees.payslip_references_on_truncate",
            "payrun.employees.payslip_references_on_update",
            "payrun.payroll_runs.payslip_references_on_delete", "payrun.payroll_runs.payslip_references_on_truncate",
            "payrun.payroll_runs.payslip_references_on_update",
            "payrun.payslips.payslips_references_on_insert", "payrun.payslips.payslips_references_on_update",
        ])
    }

    @Test("a payslip of an unknown employee or run is refused with 23503, naming the row and the column")
    func insert_unknownReference_isRefused() throws {
        let connection = try Self.database("refs_insert").connection
        let employee = #expect(throws: PostgresError.self) {
            try F.insertPayslip(connection, tenant: F.tenantA, run: F.runA, employee: 424_242)
        }
        #expect(employee?.kind == .foreignKeyViolation)
        #expect(employee?.column == "employee_id")
        #expect(employee?.message.contains("employee 424242 of tenant \(F.tenantA) does not exist") == true)
        let run = #expect(throws: PostgresError.self) {
            try F.insertPayslip(connection, tenant: F.tenantA, run: 777_777, employee: Self.spareEmployee)
        }
        #expect(run?.kind == .foreignKeyViolation)
        #expect(run?.column == "run_id")
        #expect(run?.message.contains("payroll run 777777 of tenant \(F.tenantA) does not exist") == true)
        // The same row with existing references is stored.
        try F.insertPayslip(connection, tenant: F.tenantA, run: F.runA, employee: Self.spareEmployee)
        let stored = try connection.queryOne(
            "SELECT count(*) FROM payrun.payslips WHERE tenant_id = $1 AND employee_id = $2",
            [.int(F.tenantA), .int(Self.spareEmployee)])?.int64(at: 0)
        #expect(stored == 1)
    }

    @Test("one bad row in a many-row statement refuses the whole statement and names that row")
    func multiRowInsert_oneBadRow_refusesStatement() throws {
        let connection = try Self.database("refs_multirow").connection
        for id in 5_000..<5_050 {
            try connection.execute(
                "INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES ($1, $2, $3, 'Bulk')",
                [.int(F.tenantA), .int(Int64(id)), .int(F.workplaceA)])
        }
        let copyAll = """
            INSERT INTO payrun.payslips (tenant_id, run_id, employee_id, run_version, error)
            SELECT $1, $2, e, 1, '{"code": "x", "message": "y"}' FROM generate_series(5000, $3::bigint) AS e
            """
        let error = #expect(throws: PostgresError.self) {
            try connection.execute(copyAll, [.int(F.tenantA), .int(F.runA), .int(5_050)])  // 5050 does not exist
        }
        #expect(error?.kind == .foreignKeyViolation)
        #expect(error?.message.contains("employee 5050") == true)
        #expect(try connection.queryOne("SELECT count(*) FROM payrun.payslips WHERE employee_id >= 5000")?.int64(at: 0) == 0)
        try connection.execute(copyAll, [.int(F.tenantA), .int(F.runA), .int(5_049)])
        #expect(try connection.queryOne("SELECT count(*) FROM payrun.payslips WHERE employee_id >= 5000")?.int64(at: 0) == 50)
    }

    @Test("a referenced employee or run cannot be deleted or re-keyed; unreferenced ones can")
    func referencedSide_deleteAndRekey_areRefused() throws {
        let connection = try Self.database("refs_delete").connection
        // The spare employee has no shifts or contracts (whose built-in keys would refuse first),
        // only the payslip inserted here.
        try F.insertPayslip(connection, tenant: F.tenantA, run: F.runA, employee: Self.spareEmployee)
        let employee = #expect(throws: PostgresError.self) {
            try connection.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(Self.spareEmployee)])
        }
        #expect(employee?.kind == .foreignKeyViolation)
        #expect(employee?.message.contains("row (tenant \(F.tenantA), id \(Self.spareEmployee)) is still referenced") == true)
        let rekey = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.employees SET id = 9999 WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(Self.spareEmployee)])
        }
        #expect(rekey?.kind == .foreignKeyViolation)
        try connection.execute("UPDATE payrun.employees SET name = 'Renamed' WHERE tenant_id = $1 AND id = $2",
                               [.int(F.tenantA), .int(Self.spareEmployee)])
        // Once its payslip is gone it can be re-keyed and deleted.
        try connection.execute("DELETE FROM payrun.payslips WHERE tenant_id = $1 AND employee_id = $2", [.int(F.tenantA), .int(Self.spareEmployee)])
        try connection.execute("UPDATE payrun.employees SET id = 1298 WHERE tenant_id = $1 AND id = $2",
                               [.int(F.tenantA), .int(Self.spareEmployee)])
        try connection.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = 1298", [.int(F.tenantA)])

        let run = #expect(throws: PostgresError.self) {
            try connection.execute("DELETE FROM payrun.payroll_runs WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(F.runA)])
        }
        #expect(run?.kind == .foreignKeyViolation)
        // Status updates of a referenced run keep its key and pass.
        try connection.execute("UPDATE payrun.payroll_runs SET pay_date = pay_date WHERE tenant_id = $1 AND id = $2",
                               [.int(F.tenantA), .int(F.runA)])
        // Without its payslip the run can go.
        try connection.execute("DELETE FROM payrun.payslips WHERE tenant_id = $1 AND run_id = $2", [.int(F.tenantA), .int(F.runA)])
        try connection.execute("DELETE FROM payrun.payroll_runs WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(F.runA)])
    }

    @Test("a payslip re-keyed to an unknown employee or run is refused; updates that keep the key need no check")
    func payslipRekey_isChecked() throws {
        let connection = try Self.database("refs_rekey").connection
        let employee = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET employee_id = 424242 WHERE tenant_id = $1 AND employee_id = $2",
                                   [.int(F.tenantA), .int(F.employeeA)])
        }
        #expect(employee?.kind == .foreignKeyViolation)
        #expect(employee?.column == "employee_id")
        let run = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET run_id = 777777 WHERE tenant_id = $1 AND employee_id = $2",
                                   [.int(F.tenantA), .int(F.employeeA)])
        }
        #expect(run?.kind == .foreignKeyViolation)
        #expect(run?.column == "run_id")
        try connection.execute("UPDATE payrun.payslips SET employee_id = $2 WHERE tenant_id = $1 AND employee_id = $3",
                               [.int(F.tenantA), .int(Self.spareEmployee), .int(F.employeeA)])
        try connection.execute("UPDATE payrun.payslips SET revision = revision + 1 WHERE tenant_id = $1", [.int(F.tenantA)])
        #expect(try connection.queryOne("SELECT employee_id FROM payrun.payslips WHERE tenant_id = $1", [.int(F.tenantA)])?.int64(at: 0)
                == Self.spareEmployee)
    }

    @Test("TRUNCATE of a referenced table is refused unless payslips is truncated in the same command")
    func truncate_isRefusedWhilePayslipsExist() throws {
        let connection = try Self.database("refs_truncate").connection
        let alone = #expect(throws: PostgresError.self) {
            try connection.execute("TRUNCATE payrun.payroll_runs, payrun.run_chunks, payrun.pending_corrections")
        }
        #expect(alone?.kind == .foreignKeyViolation)
        #expect(try connection.queryOne("SELECT count(*) FROM payrun.payroll_runs")?.int64(at: 0) == 2)
        try connection.execute("TRUNCATE payrun.payroll_runs, payrun.run_chunks, payrun.pending_corrections, payrun.payslips")
        #expect(try connection.queryOne("SELECT count(*) FROM payrun.payroll_runs")?.int64(at: 0) == 0)
    }

    @Test("deleting employees or runs outside READ COMMITTED is refused (0A000), even when nothing references them")
    func delete_atRepeatableRead_isRefused() throws {
        let connection = try Self.database("refs_isolation").connection
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction(isolation: .repeatableRead) { c in
                try c.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(Self.spareEmployee)])
            }
        }
        #expect(error?.sqlState == "0A000")
        #expect(error?.message.contains("only at READ COMMITTED") == true)
        // A delete that matches no row, and updates that keep keys, are fine at any level.
        try connection.transaction(isolation: .repeatableRead) { c in
            try c.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = 424242", [.int(F.tenantA)])
            try c.execute("UPDATE payrun.payroll_runs SET pay_date = pay_date WHERE tenant_id = $1", [.int(F.tenantA)])
        }
    }

    @Test("a delete waiting on a month-end's payslip insert fails once that insert commits (READ COMMITTED)")
    func concurrentDelete_afterInsertCommits_isRefused() throws {
        let (connection, url) = try Self.database("refs_race_delete")
        try connection.execute("BEGIN")
        try F.insertPayslip(connection, tenant: F.tenantA, run: F.runA, employee: Self.spareEmployee)
        // The deleter blocks on the lock the insert's check took (0015: the tenant's interlock).
        let deleter = BackgroundWork<Void>(url: url) { c in
            try c.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(Self.spareEmployee)])
        }
        // Wait until the deleter is really waiting for the lock, then commit the insert.
        try waitForLockWait(on: connection, who: "the deleter")
        try connection.execute("COMMIT")
        let error = deleter.postgresError()
        #expect(error?.kind == .foreignKeyViolation)
        #expect(try connection.queryOne("SELECT count(*) FROM payrun.employees WHERE id = $1", [.int(Self.spareEmployee)])?.int64(at: 0) == 1)
    }

    @Test("a REPEATABLE READ insert whose employee is deleted meanwhile fails with a serialization error")
    func repeatableReadInsert_employeeDeletedMeanwhile_isSerializationFailure() throws {
        let (connection, url) = try Self.database("refs_race_insert")
        let deleter = try PostgresConnection(url: url)
        defer { deleter.close() }
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        _ = try connection.queryOne("SELECT count(*) FROM payrun.employees")  // takes the snapshot
        try deleter.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(Self.spareEmployee)])
        let error = #expect(throws: PostgresError.self) {
            try F.insertPayslip(connection, tenant: F.tenantA, run: F.runA, employee: Self.spareEmployee)
        }
        #expect(error?.kind == .serializationFailure)
        try connection.execute("ROLLBACK")
    }

    @Test("at READ COMMITTED a payslip insert locks no employee row (0015); at REPEATABLE READ it locks it FOR KEY SHARE")
    func readCommittedInsert_takesNoEmployeeRowLock() throws {
        let connection = try Self.database("refs_no_row_lock").connection
        let lockedByMe = """
            SELECT xmax::text = (pg_current_xact_id()::text::bigint % 4294967296)::text FROM payrun.employees WHERE tenant_id = $1 AND id = $2
            """
        try connection.execute("BEGIN")
        try F.insertPayslip(connection, tenant: F.tenantA, run: F.runA, employee: Self.spareEmployee)
        #expect(try connection.queryOne(lockedByMe, [.int(F.tenantA), .int(Self.spareEmployee)])?.bool(at: 0) == false)
        try connection.execute("ROLLBACK")
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        try F.insertPayslip(connection, tenant: F.tenantA, run: F.runA, employee: Self.spareEmployee)
        #expect(try connection.queryOne(lockedByMe, [.int(F.tenantA), .int(Self.spareEmployee)])?.bool(at: 0) == true)
        try connection.execute("ROLLBACK")
    }

    @Test("a READ COMMITTED insert waiting on its employee's deletion fails once the deletion commits, naming the employee")
    func insertWaitingOnDelete_afterDeleteCommits_isRefused() throws {
        let (connection, url) = try Self.database("refs_race_insert_rc")
        // The deletion passed its own check (no payslip yet) and holds the tenant's interlock.
        try connection.execute("BEGIN")
        try connection.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(Self.spareEmployee)])
        let inserter = BackgroundWork<Void>(url: url) { c in
            try F.insertPayslip(c, tenant: F.tenantA, run: F.runA, employee: Self.spareEmployee)
        }
        try waitForLockWait(on: connection, who: "the inserter")
        try connection.execute("COMMIT")
        let error = inserter.postgresError()
        #expect(error?.kind == .foreignKeyViolation)
        #expect(error?.column == "employee_id")
        #expect(error?.message.contains("employee \(Self.spareEmployee) of tenant \(F.tenantA) does not exist") == true)
        #expect(try connection.queryOne("SELECT count(*) FROM payrun.payslips WHERE employee_id = $1", [.int(Self.spareEmployee)])?.int64(at: 0) == 0)
    }

    @Test("payslip inserts of other tenants do not wait for an employee deletion")
    func deletionInterlock_isPerTenant() throws {
        let (connection, url) = try Self.database("refs_interlock_tenant")
        try connection.execute("BEGIN")
        try connection.execute("DELETE FROM payrun.employees WHERE tenant_id = $1 AND id = $2", [.int(F.tenantA), .int(Self.spareEmployee)])
        let other = try PostgresConnection(url: url)
        defer { other.close() }
        try other.execute("SET lock_timeout = '5s'")
        try other.execute("INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES ($1, 2299, $2, 'Spare B')",
                          [.int(F.tenantB), .int(F.workplaceB)])
        try F.insertPayslip(other, tenant: F.tenantB, run: F.runB, employee: 2299)
        try connection.execute("ROLLBACK")
        #expect(try other.queryOne("SELECT count(*) FROM payrun.payslips WHERE tenant_id = $1 AND employee_id = 2299",
                                   [.int(F.tenantB)])?.int64(at: 0) == 1)
    }
}
