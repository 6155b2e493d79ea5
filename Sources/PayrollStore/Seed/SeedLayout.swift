import PayrollRules

/// The shape of a seeded store, decided before any row is written: how the employees split into
/// tenants and workplaces, and each workplace's settings. Small (one value per workplace), so it
/// is held in memory while the employees' rows are streamed.
///
/// Employees are numbered 0..<employees in tenant, then workplace order, so the employees of a
/// workplace get contiguous ids (month-end chunks are employee-id ranges per workplace).
struct SeedLayout {
    struct Tenant {
        var ordinal: Int
        var id: Int64
        /// Index of the tenant's first workplace in `workplaces`, and how many it has.
        var firstWorkplace: Int
        var workplaceCount: Int
        var employeeCount: Int
    }

    struct Workplace {
        var tenantOrdinal: Int
        var tenantId: Int64
        var id: Int64
        /// Ordinal inside its tenant (1, 2, …), for its name.
        var number: Int
        /// Global index of its first employee, and how many it has.
        var firstEmployee: Int
        var employeeCount: Int
        var fiveOrMore: Bool
        var weekStart: Weekday
        var payDayOfMonth: Int?
        var monthEndDay: Int
        /// A company holiday added inside the period (창립기념일), if any.
        var companyHoliday: LocalDate?
        /// A national holiday of the period withdrawn by agreement (휴일대체), if any.
        var withdrawnHoliday: LocalDate?
        /// Holidays in force in the weeks around the period (national ∪ company − withdrawn).
        var holidays: Set<LocalDate>
    }

    var tenants: [Tenant] = []
    var workplaces: [Workplace] = []

    /// Builds the layout. `tenantIdBase` and `workplaceIdBase` are the first ids to use.
    init(spec: SeedSpec, tenantIdBase: Int64, workplaceIdBase: Int64) {
        var rng = SeedRandom(seed: spec.seed, stream: 1, index: 0)
        // Tenant sizes: skewed weights 1, 2, 4, … 32 (a few franchises, many small shops), every
        // tenant at least one employee.
        let weights = (0..<spec.tenants).map { _ in 1 << rng.below(6) }
        let weightTotal = weights.reduce(0, +)
        let spare = spec.employees - spec.tenants
        var sizes = weights.map { 1 + Int(Int64(spare) * Int64($0) / Int64(weightTotal)) }
        var remainder = spec.employees - sizes.reduce(0, +)
        var k = 0
        while remainder > 0 { sizes[k % sizes.count] += 1; remainder -= 1; k += 1 }

        let windowStart = spec.period.adding(days: -CalcLimits.daysAroundPeriodMax)
        let windowEnd = spec.periodEnd.adding(days: CalcLimits.daysAroundPeriodMax)
        let periodDays = spec.period.days(to: spec.periodEnd) + 1
        var national: [LocalDate] = []
        var day = windowStart
        while day <= windowEnd {
            if HolidayCalendar.korea.contains(day) { national.append(day) }
            day = day.adding(days: 1)
        }
        let nationalInPeriod = national.filter { $0 >= spec.period && $0 <= spec.periodEnd }

        var nextEmployee = 0
        var nextWorkplaceId = workplaceIdBase
        for (t, size) in sizes.enumerated() {
            let tenantId = tenantIdBase + Int64(t)
            let first = workplaces.count
            var remaining = size
            var number = 0
            while remaining > 0 {
                number += 1
                // 40 % of workplaces are under five (1–4 people), 45 % small (5–49), 15 % large
                // (50–999): most employees work in workplaces of 5 or more.
                let roll = rng.below(100)
                var count = roll < 40 ? 1 + rng.below(4) : roll < 85 ? 5 + rng.below(45) : 50 + rng.below(950)
                count = min(count, remaining)
                remaining -= count
                let weekStartRoll = rng.below(10)
                let weekStart: Weekday = weekStartRoll == 0 ? .sun : weekStartRoll == 1 ? .sat : .mon
                let payDay = rng.pick([10, 10, 10, 15, 25, 31, nil] as [Int?])
                let monthEndDay = 1 + rng.below(5)
                let candidate = spec.period.adding(days: rng.below(periodDays))
                let companyHoliday = rng.chance(perMille: 30) && !national.contains(candidate) ? candidate : nil
                let withdrawn = !nationalInPeriod.isEmpty && rng.chance(perMille: 20) ? rng.pick(nationalInPeriod) : nil
                var holidays = Set(national)
                if let withdrawn { holidays.remove(withdrawn) }
                if let companyHoliday { holidays.insert(companyHoliday) }
                workplaces.append(Workplace(
                    tenantOrdinal: t, tenantId: tenantId, id: nextWorkplaceId, number: number,
                    firstEmployee: nextEmployee, employeeCount: count, fiveOrMore: count >= 5, weekStart: weekStart,
                    payDayOfMonth: payDay, monthEndDay: monthEndDay,
                    companyHoliday: companyHoliday,
                    withdrawnHoliday: withdrawn, holidays: holidays))
                nextWorkplaceId += 1
                nextEmployee += count
            }
            tenants.append(Tenant(ordinal: t, id: tenantId, firstWorkplace: first,
                                  workplaceCount: workplaces.count - first, employeeCount: size))
        }
        assert(nextEmployee == spec.employees, "the layout places every employee exactly once")
    }
}
