/// One employee-period to compute: the validated, typed form of a `payrun calc` request
/// (`../shared/spec/calc-api.md`) and of one employee of a batch chunk. The batch path and the
/// single-employee path both build this and call `PayrollCalculator`, so their amounts are identical.
public struct PayrollInput: Sendable {
    /// Inclusive period.
    public var periodStart: LocalDate
    public var periodEnd: LocalDate
    public var payDate: LocalDate
    public var workplace: Workplace
    public var employee: Employee
    public var contract: Contract
    /// Sorted by start, non-overlapping (validation guarantees it).
    public var shifts: [Shift]
    public var absences: [Absence]

    public init(periodStart: LocalDate, periodEnd: LocalDate, payDate: LocalDate, workplace: Workplace,
                employee: Employee, contract: Contract, shifts: [Shift], absences: [Absence] = []) {
        self.periodStart = periodStart
        self.periodEnd = periodEnd
        self.payDate = payDate
        self.workplace = workplace
        self.employee = employee
        self.contract = contract
        self.shifts = shifts
        self.absences = absences
    }
}

public struct Workplace: Sendable {
    /// 상시 5인 이상 (근로기준법 applies in full).
    public var fiveOrMore: Bool
    /// The workplace calendar of 휴일 (공휴일, 대체, 임시, 노동절, company days); nil = the built-in KR calendar.
    public var holidays: HolidayCalendar?

    public init(fiveOrMore: Bool, holidays: HolidayCalendar? = nil) {
        self.fiveOrMore = fiveOrMore
        self.holidays = holidays
    }
}

public struct Employee: Sendable {
    public var id: String
    public var birthDate: LocalDate?
    /// First day employed (inclusive); nil = employed before the period.
    public var hiredOn: LocalDate?
    /// Last day employed (inclusive); nil = still employed.
    public var leftOn: LocalDate?
    /// 공제대상가족 수, counting the employee (≥ 1).
    public var family: Int
    /// 8세 이상 20세 이하 자녀 among them.
    public var children8to20: Int
    /// 원천징수 비율: 80, 100 or 120.
    public var withholdingRatio: Int

    public init(id: String, birthDate: LocalDate? = nil, hiredOn: LocalDate? = nil, leftOn: LocalDate? = nil,
                family: Int = 1, children8to20: Int = 0, withholdingRatio: Int = 100) {
        self.id = id
        self.birthDate = birthDate
        self.hiredOn = hiredOn
        self.leftOn = leftOn
        self.family = family
        self.children8to20 = children8to20
        self.withholdingRatio = withholdingRatio
    }

    public func isEmployed(on date: LocalDate) -> Bool {
        (hiredOn.map { date >= $0 } ?? true) && (leftOn.map { date <= $0 } ?? true)
    }
}

public enum WageType: String, Sendable, CaseIterable {
    case hourly, daily, monthly
}

/// `statutory` pays exactly when the law requires; `always` pays even where it does not; `never`
/// omits it (with a `statutory_allowance_omitted` warning where the law requires it).
public enum AllowanceSwitch: String, Sendable, CaseIterable {
    case statutory, always, never
}

public enum TaxMode: String, Sendable, CaseIterable {
    /// 근로소득 간이세액표.
    case simplified
    /// 사업소득 3.3 %.
    case business33
    /// 일용근로소득.
    case daily
    case none
}

public struct InsuranceFlags: Sendable {
    public var nationalPension: Bool
    public var health: Bool
    public var employment: Bool
    public init(nationalPension: Bool = true, health: Bool = true, employment: Bool = true) {
        self.nationalPension = nationalPension
        self.health = health
        self.employment = employment
    }
}

/// Bases declared to the agencies (원 per month); nil = estimate from this period's taxable pay.
public struct InsuranceBases: Sendable {
    public var nationalPensionWon: Int64?
    public var healthWon: Int64?
    public var employmentWon: Int64?
    public init(nationalPensionWon: Int64? = nil, healthWon: Int64? = nil, employmentWon: Int64? = nil) {
        self.nationalPensionWon = nationalPensionWon
        self.healthWon = healthWon
        self.employmentWon = employmentWon
    }
}

/// 비과세 items paid this period, in 원 (each exempt up to its monthly limit).
public struct NonTaxableItems: Sendable {
    public var mealsWon: Int64
    public var carAllowanceWon: Int64
    public var childcareWon: Int64
    public init(mealsWon: Int64 = 0, carAllowanceWon: Int64 = 0, childcareWon: Int64 = 0) {
        self.mealsWon = mealsWon
        self.carAllowanceWon = carAllowanceWon
        self.childcareWon = childcareWon
    }
}

public struct Contract: Sendable {
    public var wageType: WageType
    /// 원 per hour, per day or per month, by `wageType`. > 0.
    public var wageWon: Int64
    /// Contracted 소정근로시간 per weekday in minutes, indexed by `Weekday.rawValue` (Monday = 0).
    public var scheduleMinutes: [Int32]
    public var weekStart: Weekday
    /// The 주휴일.
    public var weeklyHoliday: Weekday
    public var defaultBreakMinutes: Int32?
    public var weeklyAllowance: AllowanceSwitch
    public var nightAllowance: AllowanceSwitch
    public var overtimeAllowance: AllowanceSwitch
    public var holidayAllowance: AllowanceSwitch
    public var insurance: InsuranceFlags
    public var insuranceBase: InsuranceBases
    public var tax: TaxMode
    public var nonTaxable: NonTaxableItems

    public init(wageType: WageType, wageWon: Int64, scheduleMinutes: [Int32], weekStart: Weekday = .mon,
                weeklyHoliday: Weekday = .sun, defaultBreakMinutes: Int32? = nil,
                weeklyAllowance: AllowanceSwitch = .statutory, nightAllowance: AllowanceSwitch = .statutory,
                overtimeAllowance: AllowanceSwitch = .statutory, holidayAllowance: AllowanceSwitch = .statutory,
                insurance: InsuranceFlags = InsuranceFlags(), insuranceBase: InsuranceBases = InsuranceBases(),
                tax: TaxMode = .simplified, nonTaxable: NonTaxableItems = NonTaxableItems()) {
        precondition(scheduleMinutes.count == 7, "scheduleMinutes has one entry per weekday")
        self.wageType = wageType
        self.wageWon = wageWon
        self.scheduleMinutes = scheduleMinutes
        self.weekStart = weekStart
        self.weeklyHoliday = weeklyHoliday
        self.defaultBreakMinutes = defaultBreakMinutes
        self.weeklyAllowance = weeklyAllowance
        self.nightAllowance = nightAllowance
        self.overtimeAllowance = overtimeAllowance
        self.holidayAllowance = holidayAllowance
        self.insurance = insurance
        self.insuranceBase = insuranceBase
        self.tax = tax
        self.nonTaxable = nonTaxable
    }

    /// Weekly 소정근로시간 in minutes (the sum of `scheduleMinutes`).
    public var weeklyScheduledMinutes: Int64 { scheduleMinutes.reduce(0) { $0 + Int64($1) } }

    /// A 단시간 (part-time) contract: weekly 소정 under 40 h.
    public var isPartTime: Bool { weeklyScheduledMinutes < 2400 }
}

/// An explicit break window inside a shift (Korea wall-clock minutes, [start, end)).
public struct BreakWindow: Sendable, Hashable {
    public var start: KoreaMinute
    public var end: KoreaMinute
    public init(start: KoreaMinute, end: KoreaMinute) { self.start = start; self.end = end }
}

/// One attendance shift, [start, end) in Korea wall-clock minutes.
public struct Shift: Sendable, Hashable {
    public var start: KoreaMinute
    public var end: KoreaMinute
    /// Total break minutes, placed around the midpoint (calc-api rule 5) when `breaks` is empty.
    public var breakMinutes: Int32?
    /// Explicit break windows; when non-empty they win over `breakMinutes`.
    public var breaks: [BreakWindow]

    public init(start: KoreaMinute, end: KoreaMinute, breakMinutes: Int32? = nil, breaks: [BreakWindow] = []) {
        self.start = start
        self.end = end
        self.breakMinutes = breakMinutes
        self.breaks = breaks
    }
}

public enum AbsenceKind: String, Sendable, CaseIterable {
    /// 결근: breaks 개근 for 주휴.
    case unexcused
    /// Leave (연차 etc.): counts as attended.
    case leave
    /// Unpaid sick day: counts as attended for 주휴 (calc-api rule 7).
    case sickUnpaid = "sick_unpaid"
}

public struct Absence: Sendable, Hashable {
    public var date: LocalDate
    public var kind: AbsenceKind
    public init(date: LocalDate, kind: AbsenceKind) { self.date = date; self.kind = kind }
}
