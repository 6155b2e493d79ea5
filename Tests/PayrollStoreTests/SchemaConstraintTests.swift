import PostgresClient
import Testing
@testable import PayrollStore

/// Bad data is refused at the door, with the constraint that refused it.
@Suite("Schema constraints")
struct SchemaConstraintTests {
    let connection: PostgresConnection
    typealias F = StoreFixture

    init() throws {
        connection = try StoreFixture.twoTenants("schema_constraints")
    }

    private func insertShift(_ start: String, _ end: String, breakMinutes: Int64? = nil) throws {
        try connection.execute(
            """
            INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at, break_minutes)
            VALUES ($1, $2, $3::timestamptz, $4::timestamptz, $5)
            """,
            [.int(F.tenantA), .int(F.employeeA), .text(start), .text(end), .int(breakMinutes)])
    }

    @Test("a shift ending at or before its start is rejected")
    func shift_endNotAfterStart_isRejected() throws {
        let equal = #expect(throws: PostgresError.self) {
            try insertShift("2026-11-10T09:00:00+09:00", "2026-11-10T09:00:00+09:00")
        }
        #expect(equal?.kind == .checkViolation)
        #expect(equal?.constraint == "shifts_end_after_start")
        let before = #expect(throws: PostgresError.self) {
            try insertShift("2026-11-10T09:00:00+09:00", "2026-11-10T08:00:00+09:00")
        }
        #expect(before?.constraint == "shifts_end_after_start")
        // The same shift the right way round is accepted.
        try insertShift("2026-11-10T08:00:00+09:00", "2026-11-10T09:00:00+09:00")
    }

    @Test("shifts longer than 24 h, off whole minutes, or with a break as long as the shift are rejected")
    func shift_limits_areEnforced() throws {
        let long = #expect(throws: PostgresError.self) {
            try insertShift("2026-11-10T09:00:00+09:00", "2026-11-11T09:01:00+09:00")
        }
        #expect(long?.constraint == "shifts_at_most_24_hours")
        let seconds = #expect(throws: PostgresError.self) {
            try insertShift("2026-11-10T09:00:30+09:00", "2026-11-10T10:00:00+09:00")
        }
        #expect(seconds?.constraint == "shifts_whole_minutes")
        let breakTooLong = #expect(throws: PostgresError.self) {
            try insertShift("2026-11-10T09:00:00+09:00", "2026-11-10T10:00:00+09:00", breakMinutes: 60)
        }
        #expect(breakTooLong?.constraint == "shifts_break_shorter_than_shift")
        let outside = #expect(throws: PostgresError.self) {
            try connection.execute(
                """
                INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at, breaks)
                VALUES ($1, $2, '2026-11-10 09:00+09', '2026-11-10 18:00+09', '{["2026-11-10 08:30+09","2026-11-10 09:30+09")}')
                """, [.int(F.tenantA), .int(F.employeeA)])
        }
        #expect(outside?.constraint == "shifts_breaks_inside_shift")
        let twice = #expect(throws: PostgresError.self) {
            try insertShift("2026-11-02T17:30:00+09:00", "2026-11-02T20:00:00+09:00")
        }
        #expect(twice?.kind == .uniqueViolation)
    }

    @Test("a zero or negative wage is rejected")
    func contract_nonPositiveWage_isRejected() throws {
        for wage: Int64 in [0, -10_320] {
            let error = #expect(throws: PostgresError.self) {
                try F.insertContract(connection, tenant: F.tenantA, employee: F.employeeA, from: "2030-01-01",
                                     toExclusive: nil, wageWon: wage)
            }
            #expect(error?.kind == .checkViolation)
            #expect(error?.constraint == "contracts_wage_won_check")
        }
    }

    @Test("an unknown enumeration value is rejected")
    func unknownEnumValue_isRejected() throws {
        let wageType = #expect(throws: PostgresError.self) {
            try F.insertContract(connection, tenant: F.tenantA, employee: F.employeeA, from: "2030-01-01",
                                 toExclusive: nil, wageType: "weekly")
        }
        #expect(wageType?.constraint == "contracts_wage_type_check")
        let status = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payroll_runs SET status = 'done' WHERE id = $1", [.int(F.runA)])
        }
        #expect(status?.constraint == "payroll_runs_status_check")
        let absence = #expect(throws: PostgresError.self) {
            try connection.execute(
                "INSERT INTO payrun.absences (tenant_id, employee_id, absence_date, kind) VALUES ($1, $2, '2026-11-05', 'holiday')",
                [.int(F.tenantA), .int(F.employeeA)])
        }
        #expect(absence?.constraint == "absences_kind_check")
        let ratio = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.employees SET withholding_ratio = 90 WHERE id = $1", [.int(F.employeeA)])
        }
        #expect(ratio?.constraint == "employees_withholding_ratio_check")
        let daily = #expect(throws: PostgresError.self) {
            try connection.execute(
                """
                INSERT INTO payrun.contracts (tenant_id, employee_id, effective_from, wage_type, wage_won, tax)
                VALUES ($1, $2, '2030-01-01', 'monthly', 3000000, 'daily')
                """, [.int(F.tenantA), .int(F.employeeA)])
        }
        #expect(daily?.constraint == "contracts_daily_tax_not_monthly")
    }

    @Test("a row pointing at another tenant's row is rejected by the composite foreign key")
    func crossTenantForeignKey_isRejected() throws {
        // Tenant A's shift for tenant B's employee.
        let shift = #expect(throws: PostgresError.self) {
            try connection.execute(
                """
                INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at)
                VALUES ($1, $2, '2026-11-20 09:00+09', '2026-11-20 18:00+09')
                """, [.int(F.tenantA), .int(F.employeeB)])
        }
        #expect(shift?.kind == .foreignKeyViolation)
        // Tenant A's employee in tenant B's workplace.
        let employee = #expect(throws: PostgresError.self) {
            try connection.execute(
                "INSERT INTO payrun.employees (tenant_id, workplace_id, name) VALUES ($1, $2, 'Mixed')",
                [.int(F.tenantA), .int(F.workplaceB)])
        }
        #expect(employee?.kind == .foreignKeyViolation)
        // Tenant A's payslip in tenant B's run.
        let payslip = #expect(throws: PostgresError.self) {
            try F.insertPayslip(connection, tenant: F.tenantA, run: F.runB, employee: F.employeeA)
        }
        #expect(payslip?.kind == .foreignKeyViolation)
    }

    @Test("overlapping contracts of one employee are rejected; adjacent ones are fine")
    func contracts_overlapping_areRejected() throws {
        // The fixture's contract runs from 2026-01-01, open-ended.
        let overlap = #expect(throws: PostgresError.self) {
            try F.insertContract(connection, tenant: F.tenantA, employee: F.employeeA, from: "2025-12-01", toExclusive: "2026-01-02")
        }
        #expect(overlap?.kind == .exclusionViolation)
        #expect(overlap?.constraint == "contracts_no_overlap")
        // Ends the day before the fixture's starts: no overlap.
        try F.insertContract(connection, tenant: F.tenantA, employee: F.employeeA, from: "2025-06-01", toExclusive: "2026-01-01")
        // Another employee's dates never conflict.
        try F.insertContract(connection, tenant: F.tenantB, employee: F.employeeB, from: "2025-06-01", toExclusive: "2026-01-01")
        let empty = #expect(throws: PostgresError.self) {
            try F.insertContract(connection, tenant: F.tenantA, employee: F.employeeA, from: "2024-01-01", toExclusive: "2024-01-01")
        }
        #expect(empty?.constraint == "contracts_end_after_start")
    }

    @Test("a payslip holds either a full result or an error, and its amounts add up")
    func payslip_resultOrError_andSums() throws {
        // An employee that failed: a row with the error and no amounts.
        try connection.execute("INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES ($1, 1202, $2, 'Failed')",
                               [.int(F.tenantA), .int(F.workplaceA)])
        try connection.execute(
            """
            INSERT INTO payrun.payslips (tenant_id, run_id, employee_id, run_version, error)
            VALUES ($1, $2, 1202, 1, '{"code":"invalid_value","message":"overlapping shifts","field":"shifts[3].start"}')
            """, [.int(F.tenantA), .int(F.runA)])
        let mixed = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET gross_won = 1 WHERE employee_id = 1202")
        }
        #expect(mixed?.constraint == "payslips_result_or_error")
        let net = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET net_won = net_won + 1 WHERE employee_id = $1", [.int(F.employeeA)])
        }
        #expect(net?.constraint == "payslips_amounts_add_up")
        let buckets = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET overtime_minutes = 60 WHERE employee_id = $1", [.int(F.employeeA)])
        }
        #expect(buckets?.constraint == "payslips_buckets_add_up")
        // The lines are json (0014): the database checks that they are arrays; that every line has a
        // method is the rules engine's invariant (PayslipLinesJSONTests checks it over stored payslips).
        let notArray = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET earnings = '{}' WHERE employee_id = $1", [.int(F.employeeA)])
        }
        #expect(notArray?.constraint == "payslips_lines_are_arrays")
        let deductionsNotArray = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET deductions = '\"80370\"' WHERE employee_id = $1", [.int(F.employeeA)])
        }
        #expect(deductionsNotArray?.constraint == "payslips_lines_are_arrays")
        let notJSON = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET earnings = '[{\"code\":' WHERE employee_id = $1", [.int(F.employeeA)])
        }
        #expect(notJSON?.sqlState == "22P02")
    }

    @Test("an approved run is locked: neither it nor its payslips change")
    func approvedRun_isLocked() throws {
        try connection.execute("UPDATE payrun.payroll_runs SET status = 'approved', approved_at = now() WHERE id = $1",
                               [.int(F.runA)])
        let reopen = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payroll_runs SET status = 'calculated' WHERE id = $1", [.int(F.runA)])
        }
        #expect(reopen?.kind == .checkViolation)
        let replace = #expect(throws: PostgresError.self) {
            try connection.execute("UPDATE payrun.payslips SET revision = revision + 1 WHERE run_id = $1", [.int(F.runA)])
        }
        #expect(replace?.message.contains("approved") == true)
        let delete = #expect(throws: PostgresError.self) {
            try connection.execute("DELETE FROM payrun.payslips WHERE run_id = $1", [.int(F.runA)])
        }
        #expect(delete?.kind == .checkViolation)
        // Tenant B's run is not approved and stays writable.
        try connection.execute("UPDATE payrun.payslips SET revision = revision + 1 WHERE run_id = $1", [.int(F.runB)])
    }

    @Test("scheduling the same period twice does not duplicate the run")
    func payrollRun_schedulingTwice_doesNotDuplicate() throws {
        let inserted = try connection.query(
            """
            INSERT INTO payrun.payroll_runs (tenant_id, workplace_id, period_start, period_end, pay_date, size_class)
            VALUES ($1, $2, '2026-11-01', '2026-11-30', '2026-12-10', 'five_or_more')
            ON CONFLICT (tenant_id, workplace_id, period_start, period_end) WHERE status <> 'cancelled' DO NOTHING
            RETURNING id
            """, [.int(F.tenantA), .int(F.workplaceA)])
        #expect(inserted.isEmpty)
        let plain = #expect(throws: PostgresError.self) {
            try connection.execute(
                """
                INSERT INTO payrun.payroll_runs (tenant_id, workplace_id, period_start, period_end, pay_date, size_class)
                VALUES ($1, $2, '2026-11-01', '2026-11-30', '2026-12-10', 'five_or_more')
                """, [.int(F.tenantA), .int(F.workplaceA)])
        }
        #expect(plain?.kind == .uniqueViolation)
    }
}
