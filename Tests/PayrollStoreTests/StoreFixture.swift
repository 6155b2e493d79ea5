import PostgresClient
@testable import PayrollStore

/// Two tenants with one workplace, one employee, a contract, shifts, a run and a payslip each,
/// inserted by the (superuser) test connection. Ids are far above what identity sequences hand out.
enum StoreFixture {
    static let tenantA: Int64 = 1001
    static let tenantB: Int64 = 2001
    static let workplaceA: Int64 = 1101
    static let workplaceB: Int64 = 2101
    static let employeeA: Int64 = 1201
    static let employeeB: Int64 = 2201
    static let runA: Int64 = 1301
    static let runB: Int64 = 2301

    /// A fresh database with every migration applied.
    static func migrated(_ label: String) throws -> PostgresConnection {
        let connection = try StoreTestDatabase.connectToEmpty(label)
        try Migrator().migrate(connection)
        return connection
    }

    /// A fresh migrated database holding tenants A and B.
    static func twoTenants(_ label: String) throws -> PostgresConnection {
        try twoTenantsWithURL(label).connection
    }

    /// `twoTenants`, with the database's URL for opening more connections to it.
    static func twoTenantsWithURL(_ label: String) throws -> (connection: PostgresConnection, url: String) {
        let url = try StoreTestDatabase.createEmpty(label)
        let connection = try PostgresConnection(url: url)
        try Migrator().migrate(connection)
        try populateTwoTenants(connection)
        return (connection, url)
    }

    /// Inserts tenants A and B into a migrated database (also one migrated only up to some version).
    static func populateTwoTenants(_ connection: PostgresConnection) throws {
        for (tenant, workplace, employee, run, name) in [
            (tenantA, workplaceA, employeeA, runA, "A"), (tenantB, workplaceB, employeeB, runB, "B"),
        ] {
            try connection.execute("INSERT INTO payrun.tenants (id, name) VALUES ($1, $2)", [.int(tenant), .text("Tenant \(name)")])
            try connection.execute(
                "INSERT INTO payrun.workplaces (tenant_id, id, name, size_class) VALUES ($1, $2, $3, 'five_or_more')",
                [.int(tenant), .int(workplace), .text("Store \(name)")])
            try connection.execute(
                "INSERT INTO payrun.employees (tenant_id, id, workplace_id, name, hired_on) VALUES ($1, $2, $3, $4, '2026-11-02')",
                [.int(tenant), .int(employee), .int(workplace), .text("Employee \(name)")])
            try insertContract(connection, tenant: tenant, employee: employee, from: "2026-01-01", toExclusive: nil)
            for day in 2...6 {
                try connection.execute(
                    """
                    INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at, break_minutes)
                    VALUES ($1, $2, $3::timestamptz, $3::timestamptz + interval '6 hours 30 minutes', 30)
                    """,
                    [.int(tenant), .int(employee), .text("2026-11-0\(day)T17:30:00+09:00")])
            }
            try connection.execute(
                """
                INSERT INTO payrun.payroll_runs (tenant_id, id, workplace_id, period_start, period_end, pay_date, size_class)
                VALUES ($1, $2, $3, '2026-11-01', '2026-11-30', '2026-12-10', 'five_or_more')
                """,
                [.int(tenant), .int(run), .int(workplace)])
            try insertPayslip(connection, tenant: tenant, run: run, employee: employee)
        }
    }

    static func insertContract(
        _ connection: PostgresConnection, tenant: Int64, employee: Int64, from: String, toExclusive: String?,
        wageWon: Int64 = 10_320, wageType: String = "hourly"
    ) throws {
        try connection.execute(
            """
            INSERT INTO payrun.contracts (tenant_id, employee_id, effective_from, effective_to_exclusive, wage_type, wage_won,
                scheduled_mon_minutes, scheduled_tue_minutes, scheduled_wed_minutes, scheduled_thu_minutes, scheduled_fri_minutes)
            VALUES ($1, $2, $3::date, $4::date, $5, $6, 360, 360, 360, 360, 360)
            """,
            [.int(tenant), .int(employee), .text(from), .text(toExclusive), .text(wageType), .int(wageWon)])
    }

    /// A successful payslip shaped like calc-api's example response.
    static func insertPayslip(_ connection: PostgresConnection, tenant: Int64, run: Int64, employee: Int64) throws {
        try connection.execute(
            """
            INSERT INTO payrun.payslips (tenant_id, run_id, employee_id, run_version, rule_set,
                worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes,
                holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes,
                gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won, earnings, deductions, warnings)
            VALUES ($1, $2, $3, 1, 'kr-2026.11', 7200, 7200, 0, 0, 2400, 0, 0, 1440, 0,
                1692480, 0, 1692480, 80370, 1612110,
                '[{"code":"base_pay","minutes":7200,"rate":10320,"multiplier":"1","amount":1238400,"method":"120h × 10,320원"}]',
                '[{"code":"national_pension","base":1692000,"amount":80370,"method":"1,692,000원 × 4.75%"}]',
                '[]')
            """,
            [.int(tenant), .int(run), .int(employee)])
    }

    /// Runs `body` in a transaction as `role`, scoped to `tenant` (nil: no tenant set).
    @discardableResult
    static func asRole<T>(
        _ role: String, tenant: Int64?, on connection: PostgresConnection, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        precondition(role == "payrun_backend" || role == "payrun_worker")
        return try connection.transaction { connection in
            try connection.execute("SET LOCAL ROLE \(role)")
            if let tenant {
                try connection.execute("SELECT set_config('payrun.tenant_id', $1, true)", [.text(String(tenant))])
            }
            return try body(connection)
        }
    }
}
