import PayrollRules
import PostgresClient

/// The binary COPY statements of a seed, one per table, and how each row is encoded. Column
/// lists are constants (COPY takes no bind parameters); every value goes in binary.
enum SeedCopy {
    static let tenants = "COPY payrun.tenants (id, name, created_at) FROM STDIN (FORMAT binary)"
    static let workplaces = """
        COPY payrun.workplaces (tenant_id, id, name, size_class, week_start, pay_day_of_month, month_end_day, created_at)
        FROM STDIN (FORMAT binary)
        """
    static let workplaceHolidays = """
        COPY payrun.workplace_holidays (tenant_id, workplace_id, holiday_date, observed, kind, name) FROM STDIN (FORMAT binary)
        """
    static let employees = """
        COPY payrun.employees (tenant_id, id, workplace_id, employee_number, name, birth_date, hired_on, left_on,
                               family, children_8_to_20, withholding_ratio, created_at)
        FROM STDIN (FORMAT binary)
        """
    static let contracts = """
        COPY payrun.contracts (tenant_id, id, employee_id, effective_from, effective_to_exclusive, wage_type, wage_won,
            scheduled_mon_minutes, scheduled_tue_minutes, scheduled_wed_minutes, scheduled_thu_minutes,
            scheduled_fri_minutes, scheduled_sat_minutes, scheduled_sun_minutes,
            week_start, weekly_holiday, default_break_minutes,
            weekly_allowance, night_allowance, overtime_allowance, holiday_allowance,
            insures_national_pension, insures_health, insures_employment,
            national_pension_base_won, health_base_won, employment_base_won, tax,
            non_taxable_meals_won, non_taxable_car_allowance_won, non_taxable_childcare_won, created_at)
        FROM STDIN (FORMAT binary)
        """
    static let shifts = """
        COPY payrun.shifts (tenant_id, id, employee_id, starts_at, ends_at, break_minutes, breaks) FROM STDIN (FORMAT binary)
        """
    static let absences = "COPY payrun.absences (tenant_id, id, employee_id, absence_date, kind) FROM STDIN (FORMAT binary)"

    static func date(_ date: LocalDate) -> Int32 { date.daysSinceEpoch - DateConversion.daysFrom1970To2000 }

    static func write(_ e: SeedEmployeeRow, createdAt: Int64, to r: inout BinaryCopyRowEncoder) {
        r.int64(e.tenantId)
        r.int64(e.id)
        r.int64(e.workplaceId)
        r.text(e.number)
        r.text(e.name)
        r.date(daysSince2000: date(e.birthDate))
        r.date(daysSince2000: date(e.hiredOn))
        if let left = e.leftOn { r.date(daysSince2000: date(left)) } else { r.null() }
        r.int16(e.family)
        r.int16(e.children8to20)
        r.int16(e.withholdingRatio)
        r.timestamptz(microsecondsSince2000: createdAt)
    }

    static func write(_ c: SeedContractRow, createdAt: Int64, to r: inout BinaryCopyRowEncoder) {
        r.int64(c.tenantId)
        r.int64(c.id)
        r.int64(c.employeeId)
        r.date(daysSince2000: date(c.effectiveFrom))
        if let to = c.effectiveToExclusive { r.date(daysSince2000: date(to)) } else { r.null() }
        r.text(c.wageType.rawValue)
        r.int64(c.wageWon)
        for minutes in c.scheduleMinutes { r.int32(minutes) }
        r.text(c.weekStart?.key)
        r.text(c.weeklyHoliday.key)
        r.int32(c.defaultBreakMinutes)
        r.text(c.weeklyAllowance.rawValue)
        r.text(c.nightAllowance.rawValue)
        r.text(c.overtimeAllowance.rawValue)
        r.text(c.holidayAllowance.rawValue)
        r.bool(c.insuresNationalPension)
        r.bool(c.insuresHealth)
        r.bool(c.insuresEmployment)
        r.int64(c.insuresNationalPension ? c.declaredBaseWon : nil)
        r.int64(c.insuresHealth ? c.declaredBaseWon : nil)
        r.int64(c.insuresEmployment ? c.declaredBaseWon : nil)
        r.text(c.tax.rawValue)
        r.int64(c.mealsWon)
        r.int64(c.carAllowanceWon)
        r.int64(c.childcareWon)
        r.timestamptz(microsecondsSince2000: createdAt)
    }

    static func write(_ s: SeedShiftRow, to r: inout BinaryCopyRowEncoder) {
        r.int64(s.tenantId)
        r.int64(s.id)
        r.int64(s.employeeId)
        r.timestamptz(microsecondsSince2000: SeedGenerator.microseconds(s.start))
        r.timestamptz(microsecondsSince2000: SeedGenerator.microseconds(s.end))
        r.int32(s.breakMinutes)
        if s.breakWindows.isEmpty { r.null() } else { r.bytea(multirange(s.breakWindows)) }
    }

    static func write(_ a: SeedAbsenceRow, to r: inout BinaryCopyRowEncoder) {
        r.int64(a.tenantId)
        r.int64(a.id)
        r.int64(a.employeeId)
        r.date(daysSince2000: date(a.date))
        r.text(a.kind.rawValue)
    }

    /// The binary form of a `tstzmultirange` of `[start, end)` ranges: the range count, then per
    /// range its length and its body (flags = lower bound inclusive, then both bounds as
    /// length-prefixed int64 microseconds).
    static func multirange(_ windows: [BreakWindow]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + windows.count * 29)
        func put<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        put(Int32(windows.count))
        for w in windows {
            put(Int32(25))
            bytes.append(0x02)  // RANGE_LB_INC: '[)'
            put(Int32(8))
            put(SeedGenerator.microseconds(w.start))
            put(Int32(8))
            put(SeedGenerator.microseconds(w.end))
        }
        return bytes
    }
}
