import PayrollEngine
import PayrollRules
import PayrollStore
import PostgresClient

/// Seeds a demo employer for `payrun demo` and the end-to-end tests: one tenant, a few workplaces
/// (5인 이상 and 미만), each with employees drawn from `SyntheticWorkforce` — hourly part-timers,
/// hourly full-timers, daily and monthly staff — and their month of shifts (day, evening and night
/// starts, overtime, absences, work on 10-03/10-05/10-09 holidays in October 2026). Rows go in by
/// binary COPY with explicit ids: workplace w has employees `tenant*100_000 + w*1_000 + i`.
public struct DemoEmployer: Sendable {
    public var tenantId: Int64
    public var workplaces: Int
    public var employeesPerWorkplace: Int
    public var seed: UInt64
    public var year: Int
    public var month: Int

    public init(tenantId: Int64 = 1, workplaces: Int = 3, employeesPerWorkplace: Int = 40, seed: UInt64 = 7,
                year: Int = 2026, month: Int = 10) {
        precondition(workplaces >= 1 && workplaces <= 99 && employeesPerWorkplace >= 1 && employeesPerWorkplace <= 999)
        self.tenantId = tenantId
        self.workplaces = workplaces
        self.employeesPerWorkplace = employeesPerWorkplace
        self.seed = seed
        self.year = year
        self.month = month
    }

    public func workplaceId(_ w: Int) -> Int64 { tenantId * 100 + Int64(w) }
    public func employeeId(workplace w: Int, index i: Int) -> Int64 { tenantId * 100_000 + Int64(w) * 1_000 + Int64(i) }
    public var workforce: SyntheticWorkforce { SyntheticWorkforce(seed: seed, year: year, month: month) }

    /// The synthetic input of employee `i` of workplace `w` (before the database gives it its
    /// workplace size and calendar).
    public func input(workplace w: Int, index i: Int) -> PayrollInput { workforce.employee(w * 1_000 + i) }

    static let surnames = ["김", "이", "박", "최", "정", "강", "조", "윤", "장", "임"]
    static let givenNames = ["민준", "서연", "도윤", "하은", "지호", "수아", "예준", "지우", "시우", "서윤", "주원", "하린"]

    /// Inserts the tenant, workplaces, employees, contracts, shifts and absences. Superuser or owner
    /// connection (sets the tenant for row-level security itself).
    public func seed(on connection: PostgresConnection) throws {
        try connection.transaction { c in
            try TenantScope.set(tenantId, on: c)
            try c.execute("INSERT INTO payrun.tenants (id, name) VALUES ($1, '데모 주식회사 (demo)')", [.int(tenantId)])
            for w in 1...workplaces {
                try c.execute("""
                    INSERT INTO payrun.workplaces (tenant_id, id, name, size_class, pay_day_of_month) VALUES ($1, $2, $3, $4, 10)
                    """, [.int(tenantId), .int(workplaceId(w)), .text("데모 \(w)호점"), .text(w == workplaces && w > 1 ? "under_five" : "five_or_more")])
            }
            var inputs: [(Int, Int, PayrollInput)] = []
            for w in 1...workplaces { for i in 1...employeesPerWorkplace { inputs.append((w, i, input(workplace: w, index: i))) } }
            try c.copyIn("""
                COPY payrun.employees (tenant_id, id, workplace_id, employee_number, name, hired_on, family, children_8_to_20, withholding_ratio)
                FROM STDIN (FORMAT binary)
                """) { writer in
                for (w, i, input) in inputs {
                    try writer.row { r in
                        r.int64(tenantId)
                        r.int64(employeeId(workplace: w, index: i))
                        r.int64(workplaceId(w))
                        r.text("D\(w)-\(i)")
                        r.text(Self.surnames[(w * 7 + i) % Self.surnames.count] + Self.givenNames[(w * 3 + i * 5) % Self.givenNames.count])
                        if let hired = input.employee.hiredOn { r.date(Self.pgDate(hired)) } else { r.null() }
                        r.int16(Int16(input.employee.family))
                        r.int16(Int16(input.employee.children8to20))
                        r.int16(Int16(input.employee.withholdingRatio))
                    }
                }
            }
            try c.copyIn("""
                COPY payrun.contracts (tenant_id, employee_id, effective_from, wage_type, wage_won,
                    scheduled_mon_minutes, scheduled_tue_minutes, scheduled_wed_minutes, scheduled_thu_minutes,
                    scheduled_fri_minutes, scheduled_sat_minutes, scheduled_sun_minutes, non_taxable_meals_won)
                FROM STDIN (FORMAT binary)
                """) { writer in
                for (w, i, input) in inputs {
                    try writer.row { r in
                        r.int64(tenantId)
                        r.int64(employeeId(workplace: w, index: i))
                        r.date(Self.pgDate(LocalDate(year: year - 1, month: 1, day: 1)!))
                        r.text(input.contract.wageType.rawValue)
                        r.int64(input.contract.wageWon)
                        for m in input.contract.scheduleMinutes { r.int32(m) }
                        r.int64(input.contract.nonTaxable.mealsWon)
                    }
                }
            }
            try c.copyIn("COPY payrun.shifts (tenant_id, employee_id, starts_at, ends_at, break_minutes) FROM STDIN (FORMAT binary)") { writer in
                for (w, i, input) in inputs {
                    for s in input.shifts {
                        try writer.row { r in
                            r.int64(tenantId)
                            r.int64(employeeId(workplace: w, index: i))
                            r.timestamptz(microsecondsSince2000: Self.microseconds(s.start))
                            r.timestamptz(microsecondsSince2000: Self.microseconds(s.end))
                            r.int32(s.breakMinutes)
                        }
                    }
                }
            }
            try c.copyIn("COPY payrun.absences (tenant_id, employee_id, absence_date, kind) FROM STDIN (FORMAT binary)") { writer in
                for (w, i, input) in inputs {
                    for a in input.absences {
                        try writer.row { r in
                            r.int64(tenantId)
                            r.int64(employeeId(workplace: w, index: i))
                            r.date(Self.pgDate(a.date))
                            r.text(a.kind.rawValue)
                        }
                    }
                }
            }
        }
    }

    static func pgDate(_ date: LocalDate) -> PostgresDate { PostgresDate(daysSince2000: date.daysSinceEpoch - 10_957) }

    static func microseconds(_ minute: KoreaMinute) -> Int64 {
        minute.utcMinutes * 60_000_000 - PostgresTimestamp.unixEpochOffsetMicroseconds
    }
}
