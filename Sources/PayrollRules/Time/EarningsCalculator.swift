/// What the time side of the rules produces for one employee-period: bucketed minutes, the
/// earnings lines paid for time (base pay, premiums, 주휴, paid holidays) and warnings.
public struct EarningsResult: Sendable {
    public var minutes: MinuteBuckets
    /// Time-based earnings lines only (no non-taxable items), in payslip order.
    public var earnings: [EarningLine]
    public var warnings: [PayrollWarning]
    /// Exact (unrounded) pay attributed to each date, date order, for 일용 withholding (calc-api
    /// rule 13: per shift-start day; 주휴 and paid-holiday pay on their own dates).
    public var payByDate: [DatedAmount]

    public init(minutes: MinuteBuckets, earnings: [EarningLine], warnings: [PayrollWarning], payByDate: [DatedAmount]) {
        self.minutes = minutes
        self.earnings = earnings
        self.warnings = warnings
        self.payByDate = payByDate
    }
}

public struct DatedAmount: Sendable, Hashable {
    public var date: LocalDate
    public var amount: Rational
    public init(date: LocalDate, amount: Rational) { self.date = date; self.amount = amount }
}

/// The time side of the Korean payroll rules (rules spec §1, calc-api pinned rules 1–10).
///
/// Lines, in this order (a line whose minutes are 0 is left out, except `base_pay`):
/// - hourly/daily: `base_pay` — every worked minute × rate × 1 (always present, possibly 0);
/// - monthly: `base_pay` — the salary × proration (always present; `rate` nil, `multiplier` the
///   proration fraction, `minutes` the regular minutes it covers), then a second `base_pay` at ×1
///   for overtime, part-time-excess and holiday minutes;
/// - `overtime` ×0.5, `part_time_excess` ×0.5, `night` ×0.5, `holiday_work` ×0.5 (first 8 h of
///   the date) and `holiday_work` ×1 (beyond 8 h), each only when its switch pays it;
/// - `weekly_allowance` ×1, `paid_holiday` ×1 (hourly/daily only).
/// Each amount = ⌈minutes × rate × multiplier / 60⌉ (pinned rule 10); `rate` is the exact hourly
/// 통상임금. `method` follows `PayMethodText`.
///
/// `payByDate` holds exact, unrounded amounts: worked-time pay (with the premiums the switches
/// pay) on the shift-start date — which may be the day before `periodStart` for a shift that
/// started then — 주휴 on its 주휴일, paid holidays on their dates, and a monthly salary on
/// `periodEnd` (one payment for the period). Σ lines − Σ payByDate is in [0, number of lines).
///
/// `minutes.weeklyAllowance` and the 주휴 line's `minutes` are rounded half up when weekly 소정 is
/// not a multiple of 5 minutes (e.g. 200.2 min); the amount uses the exact value.
public enum EarningsCalculator {
    /// A period longer than this is refused (the API limits it further).
    public static let periodDaysMax = 400
    /// Wages above this (원 per hour, day or month) are refused, keeping every exact product in range.
    public static let wageWonMax: Int64 = 10_000_000_000

    /// Classifies the shifts and prices every time-based line. Input is expected validated by the
    /// API layer (shifts sorted, non-overlapping, end > start, breaks inside shifts); anything odd
    /// still yields a `PayrollError` naming the field, never a trap.
    public static func compute(_ input: PayrollInput) throws(PayrollError) -> EarningsResult {
        try compute(input, calendar: input.workplace.holidays ?? HolidayCalendar.korea, computesPayByDate: true)
    }

    /// `compute(_:)`, leaving `payByDate` empty unless `computesPayByDate`: only 일용 withholding
    /// reads it, and `PayrollCalculator` asks for it only then (for input that passed
    /// `PayrollInput.validated()` its computation cannot fail, so skipping it changes nothing else).
    /// `calendar` is the workplace calendar (`input.workplace.holidays ?? HolidayCalendar.korea`,
    /// or a copy of it), given apart so that the batch path need not build an input around it.
    /// `inputIsValidated`: `input` passed `PayrollInput.validated()` unchanged (the classifier then
    /// skips its checks of the shifts, which can only pass: `WorkClassifier.Config.shiftsAreValidated`).
    static func compute(_ input: PayrollInput, calendar: HolidayCalendar, computesPayByDate: Bool,
                        inputIsValidated: Bool = false) throws(PayrollError) -> EarningsResult {
        try validate(input)
        let rules = try WorkingTimeRules.resolve(periodStart: input.periodStart, periodEnd: input.periodEnd)
        guard rules.weeklyAllowanceDivisor == 5 else {
            throw PayrollError(.unsupported, "주휴 divisor other than 5 is not supported", field: "periodStart")
        }
        let rate = try OrdinaryHourlyWage.rate(input.contract, rules: rules)
        let fiveOrMore = input.workplace.fiveOrMore
        let periodStartDay = Int64(input.periodStart.daysSinceEpoch), periodEndDay = Int64(input.periodEnd.daysSinceEpoch)
        let mayFallShort = try MinimumWageCheck.mayFallShort(rate: rate, periodStart: input.periodStart, periodEnd: input.periodEnd)

        var config = WorkClassifier.Config(input, rules: rules, calendar: calendar, collectsCalendarDays: mayFallShort,
                                           collectsStartDays: computesPayByDate, collectsShiftStartDays: false)
        config.shiftsAreValidated = inputIsValidated
        let work = try WorkClassifier.classify(input.shifts, config)
        var buckets = work.buckets

        let weekly = WeeklyAllowance.compute(input, rules: rules, calendar: calendar,
                                             periodStartDay: periodStartDay, periodEndDay: periodEndDay,
                                             startWeekdays: work.startWeekdays)
        let weeklyFifths = weekly.fifthsPerWeek * Int64(weekly.paidDays.count)
        buckets.weeklyAllowance = (2 * weeklyFifths + 5) / 10
        let paidHolidays = PaidHolidays.compute(input, rules: rules, calendar: calendar,
                                                periodStartDay: periodStartDay, periodEndDay: periodEndDay)
        buckets.paidHoliday = paidHolidays.reduce(0) { $0 + $1.minutes }

        let pays = Premiums(contract: input.contract, fiveOrMore: fiveOrMore, rules: rules)

        // Lines. Their 계산방법 texts go into one block (one allocation for all of them).
        var salaryExact = Rational.zero
        let lines = try MethodTextBlock.with { (texts: inout MethodTextBlock) throws(PayrollError) -> [EarningLine] in
            var lines: [EarningLine] = []
            lines.reserveCapacity(8)
            // Returns the line for the caller to append (`lines.append(try line(…))`): appended
            // here, inside a local function that captures `lines`, each line was copied (every
            // field, a retain of its texts) and the original destroyed, ~150 instructions per line.
            func line(_ code: EarningCode, _ minutes: Int64, halves: Int64,
                      suffix: (inout MethodText) -> Void = { _ in }) throws(PayrollError) -> EarningLine {
                guard let amount = ExactMath.ceilDiv(Int128(minutes) * Int128(rate.numerator) * Int128(halves),
                                                     120 * Int128(rate.denominator)) else {
                    throw PayrollError(.invalidValue, "pay out of range", field: "contract.wage")
                }
                let method = texts.text { text in
                    text.line(minutes: minutes, rate: rate, multiplierHalves: halves)
                    suffix(&text)
                }
                return EarningLine(code: code, minutes: minutes, rate: rate, multiplier: PayMethodText.multiplier(halves: halves),
                                   amount: amount, methodText: method)
            }
            if input.contract.wageType == .monthly {
                let proration = OrdinaryHourlyWage.monthlyProration(periodStart: input.periodStart, periodEnd: input.periodEnd,
                                                                    employee: input.employee)
                guard let exact = ExactMath.rational(Int128(input.contract.wageWon) * Int128(proration.fraction.numerator),
                                                     Int128(proration.fraction.denominator)) else {
                    throw PayrollError(.invalidValue, "salary out of range", field: "contract.wage")
                }
                salaryExact = exact
                let method = texts.text { text in
                    text.add("월급 ")
                    text.won(input.contract.wageWon)
                    text.add("원 × ")
                    if proration.terms.count > 1 { text.add("(") }
                    for (i, term) in proration.terms.enumerated() {
                        if i > 0 { text.add(" + ") }
                        text.int(Int(term.days))
                        text.add("/")
                        text.int(Int(term.ofDays))
                    }
                    if proration.terms.count > 1 { text.add(")") }
                }
                lines.append(EarningLine(code: .basePay, minutes: buckets.regular, rate: nil, multiplier: proration.fraction.description,
                                         amount: exact.ceil, methodText: method))
                let extra = buckets.overtime + buckets.partTimeExcess + buckets.holiday + buckets.holidayOver8
                if extra > 0 { lines.append(try line(.basePay, extra, halves: 2)) }
            } else {
                lines.append(try line(.basePay, buckets.worked, halves: 2))
            }
            if pays.overtime && buckets.overtime > 0 {
                lines.append(try line(.overtime, buckets.overtime, halves: rules.overtimePremiumHalves))
            }
            if pays.overtime && buckets.partTimeExcess > 0 {
                lines.append(try line(.partTimeExcess, buckets.partTimeExcess, halves: rules.overtimePremiumHalves))
            }
            if pays.night && buckets.night > 0 { lines.append(try line(.night, buckets.night, halves: rules.nightPremiumHalves)) }
            if pays.holiday && buckets.holiday > 0 {
                lines.append(try line(.holidayWork, buckets.holiday, halves: rules.holidayPremiumHalves))
            }
            if pays.holiday && buckets.holidayOver8 > 0 {
                lines.append(try line(.holidayWork, buckets.holidayOver8, halves: rules.holidayOver8PremiumHalves))
            }
            if weeklyFifths > 0 {
                guard let amount = ExactMath.ceilDiv(Int128(weeklyFifths) * Int128(rate.numerator), 300 * Int128(rate.denominator)) else {
                    throw PayrollError(.invalidValue, "pay out of range", field: "contract.wage")
                }
                let method = texts.text { text in
                    text.hours(fifthsOfMinute: weekly.fifthsPerWeek)
                    text.add(" × ")
                    text.int(weekly.paidDays.count)
                    text.add("주 × ")
                    text.rate(rate)
                }
                lines.append(EarningLine(code: .weeklyAllowance, minutes: buckets.weeklyAllowance, rate: rate, multiplier: "1",
                                         amount: amount, methodText: method))
            }
            if buckets.paidHoliday > 0 {
                lines.append(try line(.paidHoliday, buckets.paidHoliday, halves: 2) { text in
                    for (i, h) in paidHolidays.enumerated() {
                        let c = DayMath.civil(h.day)
                        text.add(i == 0 ? " (" : ", ")
                        text.pad2(c.month)
                        text.add("-")
                        text.pad2(c.day)
                    }
                    text.add(")")
                })
            }
            let block = texts.finish()
            for k in lines.indices { lines[k].methodText.attach(to: block) }
            return lines
        }

        // Warnings: §54 and minimum wage by date, then omitted statutory allowances.
        var warnings = work.warnings
        if mayFallShort {
            if work.byCalendarDay.isEmpty && input.contract.wageType == .monthly {
                if let w = try MinimumWageCheck.warningWithoutWork(rate: rate, date: input.periodEnd) { warnings.append(w) }
            } else {
                warnings += try MinimumWageCheck.warnings(rate: rate, workDays: work.byCalendarDay)
            }
            warnings.sort { ($0.date?.daysSinceEpoch ?? .max) < ($1.date?.daysSinceEpoch ?? .max) }
        }
        pays.omissionWarnings(buckets: buckets, weeklyOmitted: weekly.omittedStatutoryWeeks, into: &warnings)

        guard computesPayByDate else {
            assert(buckets.worked == buckets.regular + buckets.overtime + buckets.partTimeExcess + buckets.holiday + buckets.holidayOver8,
                   "buckets must add up to worked minutes")
            return EarningsResult(minutes: buckets, earnings: lines, warnings: warnings, payByDate: [])
        }
        // Pay by date, in units of rate / 600 (a worked minute at ×1 is 10 units, a fifth of a 주휴 minute 2).
        var units: [(day: Int64, units: Int64)] = []
        units.reserveCapacity(work.byStartDay.count + weekly.paidDays.count + paidHolidays.count + 1)
        let baseUnitsPerRegular: Int64 = input.contract.wageType == .monthly ? 0 : 10
        for d in work.byStartDay {
            var u = d.regular * baseUnitsPerRegular + (d.overtime + d.partTimeExcess + d.holiday + d.holidayOver8) * 10
            if pays.overtime { u += (d.overtime + d.partTimeExcess) * 5 * rules.overtimePremiumHalves }
            if pays.night { u += d.night * 5 * rules.nightPremiumHalves }
            if pays.holiday { u += d.holiday * 5 * rules.holidayPremiumHalves + d.holidayOver8 * 5 * rules.holidayOver8PremiumHalves }
            units.append((d.day, u))
        }
        for paid in weekly.paidDays { units.append((paid.day, 2 * weekly.fifthsPerWeek)) }
        for h in paidHolidays { units.append((h.day, 10 * h.minutes)) }
        if input.contract.wageType == .monthly { units.append((periodEndDay, 0)) }
        units.sort { $0.day < $1.day }
        var payByDate: [DatedAmount] = []
        payByDate.reserveCapacity(units.count)
        var i = 0
        while i < units.count {
            let day = units[i].day
            var u: Int64 = 0
            while i < units.count && units[i].day == day { u += units[i].units; i += 1 }
            // In `Int64` when the products fit (always, for payroll-sized wages); else `Int128`.
            let fast = Rational.product(rate.numerator, u).flatMap { n in
                Rational.product(rate.denominator, 600).flatMap { d in Rational(reducing64: n, d) }
            }
            guard var amount = fast ?? ExactMath.rational(Int128(rate.numerator) * Int128(u), Int128(rate.denominator) * 600) else {
                throw PayrollError(.invalidValue, "pay out of range", field: "contract.wage")
            }
            if input.contract.wageType == .monthly && day == periodEndDay { amount = amount + salaryExact }
            payByDate.append(DatedAmount(date: DayMath.date(day), amount: amount))
        }

        assert(buckets.worked == buckets.regular + buckets.overtime + buckets.partTimeExcess + buckets.holiday + buckets.holidayOver8,
               "buckets must add up to worked minutes")
        return EarningsResult(minutes: buckets, earnings: lines, warnings: warnings, payByDate: payByDate)
    }

    static func validate(_ input: PayrollInput) throws(PayrollError) {
        guard input.contract.scheduleMinutes.count == 7 else {
            throw PayrollError(.invalidValue, "schedule needs one entry per weekday", field: "contract.schedule")
        }
        for (i, m) in input.contract.scheduleMinutes.enumerated() where m < 0 || m > 1440 {
            throw PayrollError(.invalidValue, "scheduled minutes must be within 0…1440",
                               field: "contract.schedule." + (Weekday(rawValue: i)?.key ?? String(i)))
        }
        guard input.contract.wageWon > 0, input.contract.wageWon <= wageWonMax else {
            throw PayrollError(.invalidValue, "wage must be within 1…\(wageWonMax)원", field: "contract.wage")
        }
        if let b = input.contract.defaultBreakMinutes, b < 0 {
            throw PayrollError(.invalidValue, "break minutes must not be negative", field: "contract.defaultBreakMinutes")
        }
        let start = Int64(input.periodStart.daysSinceEpoch), end = Int64(input.periodEnd.daysSinceEpoch)
        guard DayMath.dayRange.contains(start), DayMath.dayRange.contains(end) else {
            throw PayrollError(.invalidValue, "period out of range", field: "periodStart")
        }
        guard end >= start else { throw PayrollError(.invalidValue, "periodEnd is before periodStart", field: "periodEnd") }
        guard end - start < Int64(periodDaysMax) else {
            throw PayrollError(.unsupported, "a period may span at most \(periodDaysMax) days", field: "periodEnd")
        }
    }
}

/// Which premiums the switches pay (calc-api "Allowance switches"): `statutory` exactly when the
/// law requires them (§56 and 기간제법 §6③ at 5인 이상), `always` always, `never` never.
struct Premiums {
    let overtime: Bool
    let night: Bool
    let holiday: Bool
    // The switches themselves, not the contract: a stored copy of the contract retained its
    // schedule array (shared between employees, see `WeekSchedule`).
    let overtimeAllowance: AllowanceSwitch
    let nightAllowance: AllowanceSwitch
    let holidayAllowance: AllowanceSwitch
    let fiveOrMore: Bool

    init(contract: Contract, fiveOrMore: Bool, rules: WorkingTimeRules) {
        func pays(_ s: AllowanceSwitch) -> Bool { s == .always || (s == .statutory && fiveOrMore) }
        overtime = pays(contract.overtimeAllowance)
        night = pays(contract.nightAllowance)
        holiday = pays(contract.holidayAllowance)
        overtimeAllowance = contract.overtimeAllowance
        nightAllowance = contract.nightAllowance
        holidayAllowance = contract.holidayAllowance
        self.fiveOrMore = fiveOrMore
    }

    /// `statutory_allowance_omitted` for each `never` switch that leaves out pay the law requires.
    func omissionWarnings(buckets: MinuteBuckets, weeklyOmitted: Int, into warnings: inout [PayrollWarning]) {
        func warn(_ what: String) {
            warnings.append(PayrollWarning(code: .statutoryAllowanceOmitted, message: what))
        }
        if fiveOrMore && overtimeAllowance == .never && buckets.overtime + buckets.partTimeExcess > 0 {
            warn("overtimeAllowance never: the +50 % premium for \(PayMethodText.hours(buckets.overtime + buckets.partTimeExcess)) "
                 + "of 연장/단시간 초과근로 is required (근로기준법 §56①, 기간제법 §6③) and was not paid")
        }
        if fiveOrMore && nightAllowance == .never && buckets.night > 0 {
            warn("nightAllowance never: the +50 % premium for \(PayMethodText.hours(buckets.night)) of 야간근로 is required "
                 + "(근로기준법 §56③) and was not paid")
        }
        if fiveOrMore && holidayAllowance == .never && buckets.holiday + buckets.holidayOver8 > 0 {
            warn("holidayAllowance never: the premium for \(PayMethodText.hours(buckets.holiday + buckets.holidayOver8)) of 휴일근로 "
                 + "is required (근로기준법 §56②) and was not paid")
        }
        if weeklyOmitted > 0 {
            warn("weeklyAllowance never: 주휴수당 for \(weeklyOmitted) eligible week(s) is required (근로기준법 §55①) and was not paid")
        }
    }
}
