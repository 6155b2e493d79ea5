import PayrollRules
import PostgresClient
@testable import PayrollStore

/// October 2026 at one 5인 이상 workplace with a changed calendar (한글날 10-09 withdrawn, company
/// day 10-15 added), inserted by SQL; `expectedInput` builds the same employee-months by hand.
enum PayrollDataFixture {
    static let tenant: Int64 = 5001
    static let otherTenant: Int64 = 6001
    static let workplace: Int64 = 5101
    static let hourly: Int64 = 5201
    static let monthly: Int64 = 5202
    static let run: Int64 = 5301
    static let periodStart = LocalDate(year: 2026, month: 10, day: 1)!
    static let periodEnd = LocalDate(year: 2026, month: 10, day: 31)!
    static let payDate = LocalDate(year: 2026, month: 11, day: 10)!

    static func migrated(_ label: String) throws -> PostgresConnection {
        let connection = try StoreTestDatabase.connectToEmpty(label)
        try Migrator().migrate(connection)
        return connection
    }

    /// Tenant, workplace, calendar changes, two employees with contracts, shifts, an absence, and a
    /// `calculating` run with one chunk covering both (ids 5201…5202).
    static func seed(_ c: PostgresConnection, runStatus: String = "calculating") throws {
        try c.execute("INSERT INTO payrun.tenants (id, name) VALUES ($1, 'Fixture'), ($2, 'Other')", [.int(tenant), .int(otherTenant)])
        try c.execute("INSERT INTO payrun.workplaces (tenant_id, id, name, size_class) VALUES ($1, $2, 'Store', 'five_or_more')",
                      [.int(tenant), .int(workplace)])
        try c.execute("""
            INSERT INTO payrun.workplace_holidays (tenant_id, workplace_id, holiday_date, observed, kind, name)
            VALUES ($1, $2, '2026-10-09', false, 'public', '한글날 (대체근무)'), ($1, $2, '2026-10-15', true, 'company', '창립기념일')
            """, [.int(tenant), .int(workplace)])
        try c.execute("""
            INSERT INTO payrun.employees (tenant_id, id, workplace_id, employee_number, name, birth_date, hired_on, family, children_8_to_20, withholding_ratio)
            VALUES ($1, $2, $4, 'A-1', '김알바', '2001-03-04', '2026-01-05', 1, 0, 100),
                   ($1, $3, $4, 'M-1', '이월급', '1985-07-08', NULL, 4, 2, 120)
            """, [.int(tenant), .int(hourly), .int(monthly), .int(workplace)])
        // Hourly: an old contract until 10-15, the one in force at period end from 10-15.
        try c.execute("""
            INSERT INTO payrun.contracts (tenant_id, employee_id, effective_from, effective_to_exclusive, wage_type, wage_won,
                scheduled_mon_minutes, scheduled_tue_minutes, scheduled_wed_minutes, scheduled_thu_minutes, scheduled_fri_minutes)
            VALUES ($1, $2, '2026-01-01', '2026-10-15', 'hourly', 10030, 480, 480, 480, 480, 480),
                   ($1, $2, '2026-10-15', NULL, 'hourly', 10500, 480, 480, 480, 480, 480)
            """, [.int(tenant), .int(hourly)])
        try c.execute("""
            INSERT INTO payrun.contracts (tenant_id, employee_id, effective_from, wage_type, wage_won,
                scheduled_mon_minutes, scheduled_tue_minutes, scheduled_wed_minutes, scheduled_thu_minutes, scheduled_fri_minutes,
                default_break_minutes, non_taxable_meals_won, health_base_won)
            VALUES ($1, $2, '2025-01-01', 'monthly', 3000000, 480, 480, 480, 480, 480, 60, 200000, 3000000)
            """, [.int(tenant), .int(monthly)])
        for (employee, day, start, end, breakMinutes) in shiftRows() {
            try c.execute("""
                INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at, break_minutes)
                VALUES ($1, $2, $3::timestamptz, $4::timestamptz, $5)
                """, [.int(tenant), .int(employee), .text("\(day)T\(start):00+09:00"), .text(end(day)), breakMinutes.map { .int32($0) } ?? .null])
        }
        // One shift with explicit breaks (night work across midnight).
        try c.execute("""
            INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at, breaks)
            VALUES ($1, $2, '2026-10-17T20:00:00+09:00', '2026-10-18T05:00:00+09:00',
                    tstzmultirange(tstzrange('2026-10-18T00:00:00+09:00', '2026-10-18T01:00:00+09:00')))
            """, [.int(tenant), .int(hourly)])
        try c.execute("INSERT INTO payrun.absences (tenant_id, employee_id, absence_date, kind) VALUES ($1, $2, '2026-10-20', 'leave')",
                      [.int(tenant), .int(hourly)])
        try c.execute("""
            INSERT INTO payrun.payroll_runs (tenant_id, id, workplace_id, period_start, period_end, pay_date, size_class, status, chunks_total, employees_total)
            VALUES ($1, $2, $3, '2026-10-01', '2026-10-31', '2026-11-10', 'five_or_more', $4, 1, 2)
            """, [.int(tenant), .int(run), .int(workplace), .text(runStatus)])
        try c.execute("""
            INSERT INTO payrun.run_chunks (tenant_id, run_id, chunk_no, employee_id_from, employee_id_to, employees_planned)
            VALUES ($1, $2, 0, $3, $4, 2)
            """, [.int(tenant), .int(run), .int(hourly), .int(monthly)])
    }

    /// Weekday shifts from Monday 09-28 to Friday 11-06 (the weeks around October), 09:00–18:00 with
    /// a 60-minute break for the hourly employee (plus 2 h overtime on Thursdays), and no break given
    /// for the monthly one (the contract's default applies). Work on the 10-05 substitute holiday.
    static func shiftRows() -> [(Int64, String, String, (String) -> String, Int32?)] {
        var rows: [(Int64, String, String, (String) -> String, Int32?)] = []
        var date = LocalDate(year: 2026, month: 9, day: 28)!
        let last = LocalDate(year: 2026, month: 11, day: 6)!
        while date <= last {
            if date.weekday.rawValue < 5, date != LocalDate(year: 2026, month: 10, day: 20)! {
                let overtime = date.weekday == .thu
                rows.append((hourly, date.description, "09:00", { "\($0)T\(overtime ? "20:00" : "18:00"):00+09:00" }, 60))
                rows.append((monthly, date.description, "09:00", { "\($0)T18:00:00+09:00" }, nil))
            }
            date = date.adding(days: 1)
        }
        return rows
    }

    static func run(_ c: PostgresConnection) throws -> PayrollRun {
        guard let run = try PayrollRun.fetch(tenantId: tenant, runId: run, on: c) else { throw PayrollStoreError(.notFound, "fixture run") }
        return run
    }

    /// The workplace calendar over the window: national − 10-09 + 10-15.
    static func calendar() -> HolidayCalendar {
        let lo = periodStart.adding(days: -7), hi = periodEnd.adding(days: 7)
        var entries = HolidayCalendar.korea.entries.filter { $0.date >= lo && $0.date <= hi && $0.date != LocalDate(year: 2026, month: 10, day: 9)! }
        entries.append(HolidayCalendar.Entry(date: LocalDate(year: 2026, month: 10, day: 15)!, kind: .company, name: "창립기념일"))
        return HolidayCalendar(entries)
    }

    /// The inputs built by hand from the same facts as `seed`.
    static func expectedInput(_ employee: Int64) -> PayrollInput {
        let workplaceValue = Workplace(fiveOrMore: true, holidays: calendar())
        var shifts: [Shift] = []
        for (e, day, start, end, breakMinutes) in shiftRows() where e == employee {
            let date = LocalDate(iso: day)!
            let startMinute = KoreaMinute(date: date, minuteOfDay: start == "09:00" ? 540 : 0)
            let endText = end(day)
            let endHour = Int(endText.dropFirst(11).prefix(2))!
            shifts.append(Shift(start: startMinute, end: KoreaMinute(date: date, minuteOfDay: endHour * 60), breakMinutes: breakMinutes))
        }
        if employee == hourly {
            let d17 = LocalDate(year: 2026, month: 10, day: 17)!, d18 = d17.adding(days: 1)
            shifts.append(Shift(start: KoreaMinute(date: d17, minuteOfDay: 1200), end: KoreaMinute(date: d18, minuteOfDay: 300),
                                breaks: [BreakWindow(start: KoreaMinute(date: d18, minuteOfDay: 0), end: KoreaMinute(date: d18, minuteOfDay: 60))]))
            return PayrollInput(
                periodStart: periodStart, periodEnd: periodEnd, payDate: payDate, workplace: workplaceValue,
                employee: Employee(id: String(hourly), birthDate: LocalDate(year: 2001, month: 3, day: 4),
                                   hiredOn: LocalDate(year: 2026, month: 1, day: 5), family: 1, children8to20: 0, withholdingRatio: 100),
                contract: Contract(wageType: .hourly, wageWon: 10_500, scheduleMinutes: [480, 480, 480, 480, 480, 0, 0]),
                shifts: shifts, absences: [Absence(date: LocalDate(year: 2026, month: 10, day: 20)!, kind: .leave)])
        }
        return PayrollInput(
            periodStart: periodStart, periodEnd: periodEnd, payDate: payDate, workplace: workplaceValue,
            employee: Employee(id: String(monthly), birthDate: LocalDate(year: 1985, month: 7, day: 8),
                               family: 4, children8to20: 2, withholdingRatio: 120),
            contract: Contract(wageType: .monthly, wageWon: 3_000_000, scheduleMinutes: [480, 480, 480, 480, 480, 0, 0],
                               defaultBreakMinutes: 60, insuranceBase: InsuranceBases(healthWon: 3_000_000),
                               nonTaxable: NonTaxableItems(mealsWon: 200_000)),
            shifts: shifts)
    }
}
