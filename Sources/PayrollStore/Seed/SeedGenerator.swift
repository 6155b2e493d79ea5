import PayrollRules

/// Generates the rows of the seeded employees, block by block, in id order. Every employee's data
/// depends only on the spec's seed, the employee's global index and its workplace, so the same spec
/// gives the same rows whatever the block size.
///
/// The mix (per employee, by its own random stream):
/// - days a week around `shiftsPerEmployee`·7/days-in-month (15 % two days fewer — part-timers,
///   some under 15 h a week —, 30 % one day more), 3–8 h a day for short weeks, 8 h for five-day
///   weeks, 6 h 40 for six-day weeks; contiguous working days, the weekly holiday the day before;
/// - wage: full-time weeks 40 % monthly, 15 % daily, 45 % hourly; shorter weeks hourly (7 % daily);
///   wages at or above the 2026 minimum wage;
/// - shifts start by day (60 %), afternoon, evening (night work) or at night (crossing midnight),
///   with some jitter; 12 % run 30–180 minutes over (overtime), 3 % end early; scheduled days that
///   are holidays are worked 35 % of the time, days off 2.5 % of the time (휴일근로);
///   breaks of 30/60 minutes by length, some left to the contract default, some as explicit windows;
/// - absences on 1.7 % of scheduled days (leave, unexcused, unpaid sick leave);
/// - 4 % hired inside the month, 3 % leaving inside it, 1 % left just before it; 12 % have an
///   earlier contract (a raise), for 2 % of them the change falls inside the month;
/// - allowances: a quarter of under-five contracts switch the night/overtime/holiday premiums off
///   (lawful there), 1 % of all say `never` for 주휴수당; 3.3 % business income for 6 % of hourly
///   staff, daily withholding for most daily staff; meals/car/childcare non-taxable items;
///   under-15-hour part-timers and business-income earners are not insured, people over 60 have no
///   national pension.
struct SeedGenerator {
    let spec: SeedSpec
    let layout: SeedLayout
    let employeeIdBase: Int64
    private(set) var nextContractId: Int64
    private(set) var nextShiftId: Int64
    private(set) var nextAbsenceId: Int64
    /// Created-at stamp of every seeded row: the period's first day, 00:00 Korea time.
    let createdAtMicroseconds: Int64
    /// Shifts actually worked per 1,000 scheduled days of the month: holidays mostly not worked
    /// (65 % of them), absences (1.7 %), hires, leavers and people gone before the month (≈ 4.5 %),
    /// extra days off worked (+1 %). The schedule is scaled by it so that the month averages
    /// `shiftsPerEmployee`.
    let shiftYieldPerMille: Int

    init(spec: SeedSpec, layout: SeedLayout, employeeIdBase: Int64, contractIdBase: Int64, shiftIdBase: Int64,
         absenceIdBase: Int64) {
        self.spec = spec
        self.layout = layout
        self.employeeIdBase = employeeIdBase
        nextContractId = contractIdBase
        nextShiftId = shiftIdBase
        nextAbsenceId = absenceIdBase
        createdAtMicroseconds = SeedGenerator.microseconds(KoreaMinute(date: spec.period, minuteOfDay: 0))
        let periodDays = spec.period.days(to: spec.periodEnd) + 1
        var holidays = 0
        var day = spec.period
        while day <= spec.periodEnd {
            if HolidayCalendar.korea.contains(day) { holidays += 1 }
            day = day.adding(days: 1)
        }
        shiftYieldPerMille = 1_000 - holidays * 650 / periodDays - 17 - 45 + 10
    }

    func employeeId(_ index: Int) -> Int64 { employeeIdBase + Int64(index) }

    /// The rows of the employees of `workplaces` (indices into `layout.workplaces`).
    mutating func block(workplaces: Range<Int>) -> SeedBlock {
        var block = SeedBlock()
        let count = workplaces.reduce(0) { $0 + layout.workplaces[$1].employeeCount }
        block.employees.reserveCapacity(count)
        block.contracts.reserveCapacity(count + count / 8)
        block.shifts.reserveCapacity(count * (spec.shiftsPerEmployee + 8))
        for w in workplaces {
            let workplace = layout.workplaces[w]
            for j in 0..<workplace.employeeCount {
                employee(workplace.firstEmployee + j, ordinalInTenant: workplace.firstEmployee + j - tenantFirstEmployee(workplace),
                         workplace: workplace, into: &block)
            }
            block.employeesEnd = workplace.firstEmployee + workplace.employeeCount
        }
        return block
    }

    private func tenantFirstEmployee(_ workplace: SeedLayout.Workplace) -> Int {
        layout.workplaces[layout.tenants[workplace.tenantOrdinal].firstWorkplace].firstEmployee
    }

    static let surnames = ["김", "이", "박", "최", "정", "강", "조", "윤", "장", "임", "한", "오", "서", "신", "권", "황"]
    static let givenNames = ["민준", "서연", "도윤", "하은", "지호", "수아", "예준", "지우", "시우", "서윤", "주원", "하린",
                             "지민", "유진", "현우", "채원", "건우", "다은", "우진", "예린"]
    /// Shift start minutes of day: day (60 %), afternoon (20 %), evening (12 %), night (8 %).
    static let startMinutes: [(perMille: Int, minute: Int)] = [
        (300, 540), (150, 600), (150, 480), (100, 780), (100, 840), (70, 1020), (50, 1080), (50, 1320), (30, 1380)]

    // MARK: One employee

    private mutating func employee(_ index: Int, ordinalInTenant: Int, workplace: SeedLayout.Workplace,
                                   into block: inout SeedBlock) {
        var rng = SeedRandom(seed: spec.seed, stream: 2, index: UInt64(index))
        let id = employeeId(index)
        let tenant = workplace.tenantId
        let period = spec.period
        let periodEnd = spec.periodEnd
        let periodDays = period.days(to: periodEnd) + 1

        // Employment dates.
        let hiredInPeriod = rng.chance(perMille: 40)
        let hiredOn = hiredInPeriod ? period.adding(days: 1 + rng.below(periodDays - 1))
                                    : period.adding(days: -(30 + rng.below(3_000)))
        var leftOn: LocalDate?
        let leaveRoll = rng.below(1000)
        if leaveRoll < 30 {
            let earliest = max(hiredOn, period)
            let span = earliest.days(to: periodEnd)  // leaves before the last day
            if span > 0 { leftOn = earliest.adding(days: rng.below(span)) }
        } else if leaveRoll < 40, !hiredInPeriod {
            let left = period.adding(days: -(1 + rng.below(60)))
            if left >= hiredOn { leftOn = left }
        }
        let birthDate = period.adding(days: -(18 * 365 + rng.below(47 * 365)))
        let ageYears = birthDate.days(to: period) / 365
        let familyRoll = rng.below(100)
        let family = familyRoll < 45 ? 1 : familyRoll < 65 ? 2 : familyRoll < 85 ? 3 : familyRoll < 97 ? 4 : 5 + rng.below(2)
        let children = family > 1 ? rng.below(min(family - 1, 3) + 1) : 0
        let ratioRoll = rng.below(10)
        let ratio: Int16 = ratioRoll == 0 ? 80 : ratioRoll == 1 ? 120 : 100
        block.employees.append(SeedEmployeeRow(
            tenantId: tenant, id: id, workplaceId: workplace.id,
            number: "E" + Self.zeroPadded(ordinalInTenant + 1, width: 7),
            name: rng.pick(Self.surnames) + rng.pick(Self.givenNames),
            birthDate: birthDate, hiredOn: hiredOn, leftOn: leftOn,
            family: Int16(family), children8to20: Int16(children), withholdingRatio: ratio))

        // Weekly schedule: `days` contiguous working days from `firstDay`.
        let targetPerMille = spec.shiftsPerEmployee * 7_000 * 1_000 / periodDays / shiftYieldPerMille
        let kindRoll = rng.below(100)
        let daysPerMille = targetPerMille + (kindRoll < 15 ? -2_000 : kindRoll < 70 ? 0 : 1_000)
        var days = max(daysPerMille, 0) / 1_000 + (rng.below(1_000) < max(daysPerMille, 0) % 1_000 ? 1 : 0)
        days = min(max(days, 1), 6)
        let dailyMinutes: Int32
        switch days {
        case ...4: dailyMinutes = Int32(180 + 30 * rng.below(11))
        case 5: dailyMinutes = rng.chance(perMille: 850) ? 480 : Int32(240 + 30 * rng.below(8))
        default: dailyMinutes = rng.chance(perMille: 700) ? 400 : Int32(300 + 30 * rng.below(4))
        }
        let firstDay = days == 5 && rng.chance(perMille: 800) ? 0 : rng.below(7)
        var schedule = [Int32](repeating: 0, count: 7)
        for d in 0..<days { schedule[(firstDay + d) % 7] = dailyMinutes }
        let weeklyHoliday = Weekday(rawValue: (firstDay + 6) % 7) ?? .sun
        let weeklyMinutes = Int32(days) * dailyMinutes
        let fullTime = weeklyMinutes >= 2_400

        // Wage and tax.
        let wageType: WageType
        let wageRoll = rng.below(100)
        if fullTime {
            wageType = wageRoll < 40 ? .monthly : wageRoll < 55 ? .daily : .hourly
        } else {
            wageType = wageRoll < 7 ? .daily : .hourly
        }
        let wageWon: Int64
        switch wageType {
        case .hourly: wageWon = 10_320 + 10 * Int64(rng.below(800))
        case .daily: wageWon = (10_320 * Int64(dailyMinutes) / 60 / 1_000 + 1) * 1_000 + 1_000 * Int64(rng.below(40))
        case .monthly: wageWon = 2_200_000 + 10_000 * Int64(rng.below(300))
        }
        let tax: TaxMode
        let taxRoll = rng.below(100)
        switch wageType {
        case .hourly: tax = taxRoll < 6 ? .business33 : taxRoll < 7 ? .none : .simplified
        case .daily: tax = taxRoll < 60 ? .daily : .simplified
        case .monthly: tax = .simplified
        }
        let underFifteenHours = weeklyMinutes < 900
        let insured = !underFifteenHours && tax != .business33
        let dailyUninsured = wageType == .daily && rng.chance(perMille: 500)

        // Allowances: under five, a quarter switch the premiums off (they are not owed there).
        var premiums = AllowanceSwitch.statutory
        if !workplace.fiveOrMore {
            let roll = rng.below(100)
            premiums = roll < 25 ? .never : roll < 35 ? .always : .statutory
        }
        let weeklyRoll = rng.below(1000)
        let weeklyAllowance: AllowanceSwitch = weeklyRoll < 10 ? .never : (underFifteenHours && weeklyRoll < 60 ? .always : .statutory)
        let defaultBreak: Int32? = rng.chance(perMille: 100) ? (dailyMinutes >= 480 ? 60 : 30) : nil
        let mealsWon: Int64 = wageType == .monthly ? (rng.chance(perMille: 800) ? 200_000 : 0)
                                                   : (fullTime && rng.chance(perMille: 300) ? 100_000 : 0)
        let carWon: Int64 = wageType == .monthly && rng.chance(perMille: 100) ? 200_000 : 0
        let childcareWon: Int64 = children > 0 && wageType == .monthly && rng.chance(perMille: 150) ? 100_000 * Int64(1 + rng.below(2)) : 0
        let contractWeekStart: Weekday? = rng.chance(perMille: 50) ? .sun : nil

        // Contract history: 12 % had an earlier contract (a raise); for a sixth of those the new
        // contract starts inside the period.
        var effectiveFrom = hiredOn
        if !hiredInPeriod, rng.chance(perMille: 120) {
            let change: LocalDate
            if rng.chance(perMille: 170) {
                change = period.adding(days: 1 + rng.below(periodDays - 1))
            } else {
                let span = hiredOn.days(to: period)
                change = span > 2 ? hiredOn.adding(days: 1 + rng.below(span - 1)) : period
            }
            if change > hiredOn, leftOn.map({ change <= $0 }) ?? true {
                block.contracts.append(SeedContractRow(
                    tenantId: tenant, id: nextContractId, employeeId: id, effectiveFrom: hiredOn, effectiveToExclusive: change,
                    wageType: wageType, wageWon: max(wageWon * 95 / 100, 1), scheduleMinutes: schedule, weekStart: contractWeekStart,
                    weeklyHoliday: weeklyHoliday, defaultBreakMinutes: defaultBreak, weeklyAllowance: weeklyAllowance,
                    nightAllowance: premiums, overtimeAllowance: premiums, holidayAllowance: premiums,
                    insuresNationalPension: insured && ageYears < 60 && !dailyUninsured, insuresHealth: insured && !dailyUninsured,
                    insuresEmployment: insured, declaredBaseWon: nil, tax: tax,
                    mealsWon: mealsWon, carAllowanceWon: carWon, childcareWon: childcareWon))
                nextContractId += 1
                effectiveFrom = change
            }
        }
        let declaredBase: Int64? = wageType == .monthly && insured && rng.chance(perMille: 600) ? wageWon : nil
        block.contracts.append(SeedContractRow(
            tenantId: tenant, id: nextContractId, employeeId: id, effectiveFrom: effectiveFrom,
            effectiveToExclusive: leftOn.map { $0.adding(days: 1) },
            wageType: wageType, wageWon: wageWon, scheduleMinutes: schedule, weekStart: contractWeekStart,
            weeklyHoliday: weeklyHoliday, defaultBreakMinutes: defaultBreak, weeklyAllowance: weeklyAllowance,
            nightAllowance: premiums, overtimeAllowance: premiums, holidayAllowance: premiums,
            insuresNationalPension: insured && ageYears < 60 && !dailyUninsured, insuresHealth: insured && !dailyUninsured,
            insuresEmployment: insured, declaredBaseWon: declaredBase, tax: tax,
            mealsWon: mealsWon, carAllowanceWon: carWon, childcareWon: childcareWon))
        nextContractId += 1

        // Shifts and absences over the whole weeks around the period (the employee's week start).
        var startRoll = rng.below(1000)
        var baseStart = 540
        for choice in Self.startMinutes {
            if startRoll < choice.perMille { baseStart = choice.minute; break }
            startRoll -= choice.perMille
        }
        let weekStart = contractWeekStart ?? workplace.weekStart
        let firstDate = period.adding(days: -((period.weekday.rawValue - weekStart.rawValue + 7) % 7))
        let lastDate = periodEnd.adding(days: 6 - (periodEnd.weekday.rawValue - weekStart.rawValue + 7) % 7)
        let employedFrom = max(firstDate, hiredOn)
        let employedTo = min(lastDate, leftOn ?? lastDate)
        guard employedFrom <= employedTo else { return }
        var date = employedFrom
        while date <= employedTo {
            defer { date = date.adding(days: 1) }
            let scheduledMinutes = schedule[date.weekday.rawValue]
            let holiday = workplace.holidays.contains(date)
            var worked: Int64
            if scheduledMinutes > 0 {
                if !holiday {
                    let absenceRoll = rng.below(1000)
                    if absenceRoll < 17 {
                        let kind: AbsenceKind = absenceRoll < 9 ? .leave : absenceRoll < 14 ? .unexcused : .sickUnpaid
                        block.absences.append(SeedAbsenceRow(tenantId: tenant, id: nextAbsenceId, employeeId: id, date: date, kind: kind))
                        nextAbsenceId += 1
                        continue
                    }
                } else if !rng.chance(perMille: 350) {
                    continue
                }
                worked = Int64(scheduledMinutes)
            } else {
                guard rng.chance(perMille: 25) else { continue }
                worked = Int64(240 + 30 * rng.below(9))
            }
            let variation = rng.below(1000)
            if variation < 120 {
                worked += 30 * Int64(1 + rng.below(6))  // overtime
            } else if variation < 150 {
                worked = max(60, worked - 30 * Int64(1 + rng.below(4)))  // left early
            }
            let jitter = rng.chance(perMille: 200) ? 10 * (rng.below(7) - 3) : 0
            let start = KoreaMinute(date: date, minuteOfDay: baseStart + jitter)
            let breakMinutes: Int32 = worked >= 480 ? 60 : worked >= 240 ? 30 : 0
            let end = start.adding(minutes: worked + Int64(breakMinutes))
            var row = SeedShiftRow(tenantId: tenant, id: nextShiftId, employeeId: id, start: start, end: end,
                                   breakMinutes: breakMinutes, breakWindows: [])
            let breakRoll = rng.below(1000)
            if let defaultBreak, breakRoll < 300, defaultBreak == breakMinutes {
                row.breakMinutes = nil  // the contract's default applies
            } else if breakRoll >= 960, breakMinutes > 0 {
                // Explicit windows: one at the middle, or two halves around it.
                let middle = start.adding(minutes: (worked + Int64(breakMinutes)) / 2)
                if breakMinutes == 60 && breakRoll >= 980 {
                    row.breakWindows = [BreakWindow(start: middle.adding(minutes: -90), end: middle.adding(minutes: -60)),
                                        BreakWindow(start: middle.adding(minutes: 60), end: middle.adding(minutes: 90))]
                } else {
                    row.breakWindows = [BreakWindow(start: middle, end: middle.adding(minutes: Int64(breakMinutes)))]
                }
                row.breakMinutes = nil
            }
            block.shifts.append(row)
            nextShiftId += 1
        }
    }

    // MARK: Encoding helpers

    /// `timestamptz` microseconds since 2000-01-01 UTC of a Korea minute.
    static func microseconds(_ minute: KoreaMinute) -> Int64 {
        minute.utcMinutes * 60_000_000 - DateConversion.microsecondsFrom1970To2000
    }

    static func zeroPadded(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
