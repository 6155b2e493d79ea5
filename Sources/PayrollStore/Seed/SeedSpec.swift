import PayrollRules

/// What `StoreSeeder` generates: `employees` spread over `tenants`, with about `shiftsPerEmployee`
/// shifts each in the month starting at `period` (plus the days of the whole weeks around it that a
/// month-end run reads). The same spec (same `seed`) gives the same rows.
public struct SeedSpec: Sendable, Equatable {
    public var tenants: Int
    /// Total across all tenants.
    public var employees: Int
    /// Average shifts per employee inside the month (default 22 = a five-day week).
    public var shiftsPerEmployee: Int
    /// The random seed (SplitMix64); default 1.
    public var seed: UInt64
    /// First day of the month seeded; default 2026-10-01.
    public var period: LocalDate

    public init(tenants: Int, employees: Int, shiftsPerEmployee: Int = 22, seed: UInt64 = 1,
                period: LocalDate = LocalDate(year: 2026, month: 10, day: 1)!) {
        self.tenants = tenants
        self.employees = employees
        self.shiftsPerEmployee = shiftsPerEmployee
        self.seed = seed
        self.period = period
    }

    /// Largest store accepted (a sanity bound: ids, counters and the summary stay far inside Int32).
    public static let employeesMax = 100_000_000
    /// Shifts per employee in the month: at least one, at most six days a week (one weekly
    /// holiday, 근로기준법 §55) over a 31-day month.
    public static let shiftsPerEmployeeRange = 1...26

    /// Last day of the seeded month.
    public var periodEnd: LocalDate {
        period.adding(days: LocalDate.daysInMonth(year: period.year, month: period.month) - 1)
    }

    /// Throws an `invalid_request` error naming the first bad value.
    public func validate() throws(PayrollStoreError) {
        guard employees >= 1 else {
            throw PayrollStoreError(.invalidRequest, "employees must be at least 1, got \(employees)")
        }
        guard employees <= Self.employeesMax else {
            throw PayrollStoreError(.invalidRequest, "employees must be at most \(Self.employeesMax), got \(employees)")
        }
        guard tenants >= 1 else {
            throw PayrollStoreError(.invalidRequest, "tenants must be at least 1, got \(tenants)")
        }
        guard tenants <= employees else {
            throw PayrollStoreError(.invalidRequest, "tenants (\(tenants)) must not exceed employees (\(employees)): every tenant gets at least one employee")
        }
        guard Self.shiftsPerEmployeeRange.contains(shiftsPerEmployee) else {
            throw PayrollStoreError(.invalidRequest, "shifts per employee must be \(Self.shiftsPerEmployeeRange.lowerBound)…\(Self.shiftsPerEmployeeRange.upperBound) (at most six working days a week), got \(shiftsPerEmployee)")
        }
        guard period.day == 1 else {
            throw PayrollStoreError(.invalidRequest, "period must be the first day of a month, got \(period)")
        }
        guard period >= RuleCoverage.premiumMonthFirst, period <= RuleCoverage.premiumMonthLast else {
            throw PayrollStoreError(.invalidRequest, "period \(period.description.prefix(7)) is outside the months the rule tables cover (\(RuleCoverage.premiumMonthsText))")
        }
    }
}
