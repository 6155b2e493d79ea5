import PayrollRules

/// The rows of one block of seeded employees, in the column order of their COPY statements.
/// Plain values (no per-shift strings), so a block of 10,000 employees costs a few MiB.
struct SeedBlock {
    var employees: [SeedEmployeeRow] = []
    var contracts: [SeedContractRow] = []
    var shifts: [SeedShiftRow] = []
    var absences: [SeedAbsenceRow] = []
    /// Employees covered (the last one's global index + 1).
    var employeesEnd = 0
}

struct SeedEmployeeRow {
    var tenantId: Int64
    var id: Int64
    var workplaceId: Int64
    var number: String
    var name: String
    var birthDate: LocalDate
    var hiredOn: LocalDate
    var leftOn: LocalDate?
    var family: Int16
    var children8to20: Int16
    var withholdingRatio: Int16
}

struct SeedContractRow {
    var tenantId: Int64
    var id: Int64
    var employeeId: Int64
    var effectiveFrom: LocalDate
    var effectiveToExclusive: LocalDate?
    var wageType: WageType
    var wageWon: Int64
    /// Minutes per weekday, Monday first (`Weekday.rawValue`).
    var scheduleMinutes: [Int32]
    var weekStart: Weekday?
    var weeklyHoliday: Weekday
    var defaultBreakMinutes: Int32?
    var weeklyAllowance: AllowanceSwitch
    var nightAllowance: AllowanceSwitch
    var overtimeAllowance: AllowanceSwitch
    var holidayAllowance: AllowanceSwitch
    var insuresNationalPension: Bool
    var insuresHealth: Bool
    var insuresEmployment: Bool
    /// Declared 보수월액 for all three insurances (nil = estimated from the period's pay).
    var declaredBaseWon: Int64?
    var tax: TaxMode
    var mealsWon: Int64
    var carAllowanceWon: Int64
    var childcareWon: Int64
}

struct SeedShiftRow {
    var tenantId: Int64
    var id: Int64
    var employeeId: Int64
    var start: KoreaMinute
    var end: KoreaMinute
    /// nil = the contract's default break (only when the contract has one) or the explicit windows.
    var breakMinutes: Int32?
    /// Explicit break windows (`breaks`), or empty.
    var breakWindows: [BreakWindow]
}

struct SeedAbsenceRow {
    var tenantId: Int64
    var id: Int64
    var employeeId: Int64
    var date: LocalDate
    var kind: AbsenceKind
}
