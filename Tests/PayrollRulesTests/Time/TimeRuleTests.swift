import Testing
@testable import PayrollRules

/// One test per rule of rules spec §1 and calc-api pinned rules 1–10 (time side).
@Suite("Time rules")
struct TimeRuleTests {
    let november = ("2026-11-01", "2026-11-30")

    // MARK: 주휴 (rule 7)

    @Test("주휴: 15 h of weekly 소정 qualifies, 14 h 59 m does not")
    func weeklyAllowance_15HoursQualifies_14h59mDoesNot() throws {
        func run(_ minutesPerDay: Int32, lastDay: Int32) throws -> EarningsResult {
            var s = TT.schedule([.mon: minutesPerDay, .tue: minutesPerDay, .wed: lastDay])
            s[6] = 0
            let shifts = TT.daily([TT.date("2026-11-02")], "09:00", "14:00") + TT.daily([TT.date("2026-11-03")], "09:00", "14:00")
                + TT.daily([TT.date("2026-11-04")], "09:00", "14:00")
            return try EarningsCalculator.compute(TT.input(period: ("2026-11-02", "2026-11-08"), schedule: s, shifts: shifts))
        }
        let fifteen = try run(300, lastDay: 300)       // 900 min
        #expect(fifteen.minutes.weeklyAllowance == 180)  // 15 h / 5 = 3 h
        #expect(fifteen.amount(.weeklyAllowance) == 30_960)
        let under = try run(300, lastDay: 299)         // 899 min
        #expect(under.minutes.weeklyAllowance == 0)
        #expect(under.lines(.weeklyAllowance).isEmpty)
    }

    @Test("주휴: min(weekly 소정, 40 h) / 5 — 20 h gives 4 h, 32 h gives 6.4 h, 48 h gives 8 h")
    func weeklyAllowance_minutesAreScheduleOverFiveCappedAt40h() throws {
        func weekly(_ perDay: Int32, days: Set<Weekday>) throws -> EarningLine? {
            let s = TT.schedule(Dictionary(uniqueKeysWithValues: days.map { ($0, perDay) }))
            let shifts = TT.daily(TT.dates("2026-11-02", "2026-11-07", on: days), "08:00", "08:30")
            return try EarningsCalculator.compute(TT.input(period: ("2026-11-02", "2026-11-08"), schedule: s, shifts: shifts))
                .lines(.weeklyAllowance).first
        }
        #expect(try weekly(240, days: TT.monToFri)?.minutes == 240)
        let w32 = try weekly(384, days: TT.monToFri)
        #expect(w32?.minutes == 384 && w32?.amount == 66_048)
        #expect(w32?.method == "6h 24m × 1주 × 10,320원")
        #expect(try weekly(480, days: TT.monToFri.union([.sat]))?.minutes == 480)
        // 1,001 min a week: 200.2 min of 주휴, priced exactly (⌈200.2 × 10,320 / 60⌉ = 34,435).
        let odd = try EarningsCalculator.compute(TT.input(
            period: ("2026-11-02", "2026-11-08"), schedule: TT.schedule([.mon: 500, .tue: 501]),
            shifts: TT.daily(TT.dates("2026-11-02", "2026-11-03", on: [.mon, .tue]), "09:00", "10:00")))
        #expect(odd.lines(.weeklyAllowance).first?.amount == 34_435)
        #expect(odd.lines(.weeklyAllowance).first?.method == "3h 20.2m × 1주 × 10,320원")
    }

    @Test("주휴: an unexcused absence breaks 개근; leave, sick_unpaid and a calendar holiday do not")
    func weeklyAllowance_attendance() throws {
        let days = TT.dates("2026-11-02", "2026-11-06", on: TT.monToFri)
        let withoutWed = TT.daily(days.filter { $0 != TT.date("2026-11-04") }, "09:00", "15:00")
        func run(_ absences: [Absence], holidays: [String]? = nil) throws -> Int64 {
            try EarningsCalculator.compute(TT.input(period: ("2026-11-02", "2026-11-08"), holidays: holidays,
                                                    schedule: TT.weekdays(360), shifts: withoutWed, absences: absences))
                .minutes.weeklyAllowance
        }
        let wed = TT.date("2026-11-04")
        #expect(try run([]) == 0)
        #expect(try run([Absence(date: wed, kind: .unexcused)]) == 0)
        #expect(try run([Absence(date: wed, kind: .leave)]) == 360)
        #expect(try run([Absence(date: wed, kind: .sickUnpaid)]) == 360)
        #expect(try run([], holidays: ["2026-11-04"]) == 360)
    }

    @Test("주휴: joining mid-week gives none for that week; the next full week qualifies")
    func weeklyAllowance_requiresEmploymentThroughTheWeek() throws {
        let r = try EarningsCalculator.compute(TT.input(
            period: november, schedule: TT.weekdays(360), hiredOn: "2026-11-04",
            shifts: TT.daily(TT.dates("2026-11-04", "2026-11-13", on: TT.monToFri), "09:00", "15:00", breakMinutes: 0)))
        #expect(r.payByDate.contains { $0.date == TT.date("2026-11-08") } == false)
        #expect(r.pay(on: "2026-11-15") == Rational(61_920))
        #expect(r.minutes.weeklyAllowance == 360)
    }

    @Test("주휴: the 4-week average runs over the weeks employed throughout (a weekend hire is not diluted)")
    func weeklyAllowance_fourWeekAverageOverEmployedWeeks() throws {
        // Hired Saturday 10-31 on exactly 15 h a week; the first full week 11-02 … 11-08 qualifies.
        let r = try EarningsCalculator.compute(TT.input(
            period: november, schedule: TT.weekdays(180), hiredOn: "2026-10-31",
            shifts: TT.daily(TT.dates("2026-11-02", "2026-11-06", on: TT.monToFri), "09:00", "12:00")))
        #expect(r.pay(on: "2026-11-08") == Rational(30_960))
        #expect(r.pay(on: "2026-11-01") == nil)  // week 10-26 … 11-01 not employed throughout
    }

    @Test("주휴: paid in the period holding the 주휴일, using shifts before the period")
    func weeklyAllowance_paidInThePeriodOfTheJuhyuil() throws {
        // Week 10-26 … 11-01: the shifts are in October, the 주휴일 (Sun 11-01) is in November.
        let shifts = TT.daily(TT.dates("2026-10-26", "2026-10-30", on: TT.monToFri), "09:00", "15:00")
        let nov = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(360), shifts: shifts))
        #expect(nov.minutes.worked == 0)
        #expect(nov.minutes.weeklyAllowance == 360)
        #expect(nov.pay(on: "2026-11-01") == Rational(61_920))
        let oct = try EarningsCalculator.compute(TT.input(period: ("2026-10-01", "2026-10-31"), schedule: TT.weekdays(360), shifts: shifts))
        #expect(oct.minutes.weeklyAllowance == 0)
        #expect(oct.minutes.worked == 1800)
    }

    @Test("주휴 switches: always pays without attendance; never omits with a warning; monthly never gets it")
    func weeklyAllowance_switchesAndMonthly() throws {
        let always = try EarningsCalculator.compute(TT.input(period: ("2026-11-02", "2026-11-08"), schedule: TT.weekdays(120),
                                                             weeklyAllowance: .always, shifts: []))
        #expect(always.minutes.weeklyAllowance == 120)  // 10 h a week, no shifts: only `always` pays
        let shifts = TT.daily(TT.dates("2026-11-02", "2026-11-06", on: TT.monToFri), "09:00", "15:00")
        let never = try EarningsCalculator.compute(TT.input(period: ("2026-11-02", "2026-11-08"), schedule: TT.weekdays(360),
                                                            weeklyAllowance: .never, shifts: shifts))
        #expect(never.minutes.weeklyAllowance == 0)
        #expect(never.warnings(.statutoryAllowanceOmitted).count == 1)
        let monthly = try EarningsCalculator.compute(TT.input(period: november, wageType: .monthly, wage: 3_000_000,
                                                              schedule: TT.weekdays(480), shifts: shifts))
        #expect(monthly.lines(.weeklyAllowance).isEmpty && monthly.minutes.weeklyAllowance == 0)
    }

    // MARK: Breaks (rule 5, §54)

    @Test("Break placement: one window centred on the midpoint, start = midpoint − ⌊b/2⌋, odd length floored")
    func breakPlacement_centredOnMidpoint() throws {
        #expect(ShiftBreaks.centredWindow(shiftStart: 0, shiftEnd: 390, breakMinutes: 30) == (180, 210))
        #expect(ShiftBreaks.centredWindow(shiftStart: 0, shiftEnd: 391, breakMinutes: 31) == (180, 211))  // midpoint 195
        #expect(ShiftBreaks.centredWindow(shiftStart: 0, shiftEnd: 60, breakMinutes: 60) == (0, 60))
        // A 21:00–23:00 shift with a 60-minute break: break 21:30–22:30, so 30 minutes of night.
        let r = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480),
                                                        shifts: [TT.shift("2026-11-03T21:00", "2026-11-03T23:00", breakMinutes: 60)]))
        #expect(r.minutes.worked == 60 && r.minutes.night == 30)
        // breakMinutes falls back to the contract default; explicit windows win over both.
        let byDefault = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), defaultBreakMinutes: 45,
                                                                shifts: [TT.shift("2026-11-03T09:00", "2026-11-03T18:00")]))
        #expect(byDefault.minutes.worked == 495)
        let explicit = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), defaultBreakMinutes: 45,
            shifts: [TT.shift("2026-11-03T09:00", "2026-11-03T18:00", breakMinutes: 10, breaks: [("2026-11-03T12:00", "2026-11-03T13:00")])]))
        #expect(explicit.minutes.worked == 480)
    }

    @Test("§54: a break below 30 min for 4 h or 60 min for 8 h warns with the date; a break at the edge does not count")
    func breakBelowStatutory_warnsWithDate() throws {
        func warnings(_ shift: Shift) throws -> [PayrollWarning] {
            try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), shifts: [shift]))
                .warnings(.breakBelowStatutory)
        }
        #expect(try warnings(TT.shift("2026-11-03T09:00", "2026-11-03T13:29", breakMinutes: 30)).isEmpty)  // 3h59m of work
        #expect(try warnings(TT.shift("2026-11-03T09:00", "2026-11-03T13:30", breakMinutes: 30)).isEmpty)  // 4 h with 30 m
        let short = try warnings(TT.shift("2026-11-03T09:00", "2026-11-03T13:29", breakMinutes: 29))      // 4 h with 29 m
        #expect(short.count == 1 && short.first?.date == TT.date("2026-11-03"))
        #expect(try warnings(TT.shift("2026-11-03T09:00", "2026-11-03T17:30", breakMinutes: 30)).count == 1)  // 8 h needs 60 m
        #expect(try warnings(TT.shift("2026-11-03T09:00", "2026-11-03T18:00", breakMinutes: 60)).isEmpty)
        // A 30-minute break at the very start of a 4.5 h shift: deducted, but not "during" work.
        let atStart = try warnings(TT.shift("2026-11-03T09:00", "2026-11-03T13:30", breaks: [("2026-11-03T09:00", "2026-11-03T09:30")]))
        #expect(atStart.count == 1)
    }

    @Test("§54① 단서 is dated 2026-12-10 and needs a recorded request, which the input cannot carry yet")
    func breakWaiver_gatedByDateAndRequest() {
        let before = TT.date("2026-12-09"), after = TT.date("2026-12-10")
        #expect(!BreakWaiver.waives(workDate: after, netWorkMinutes: 240, requiredBreakMinutes: 30, employeeRequestRecorded: false))
        #expect(!BreakWaiver.waives(workDate: before, netWorkMinutes: 240, requiredBreakMinutes: 30, employeeRequestRecorded: true))
        #expect(BreakWaiver.waives(workDate: after, netWorkMinutes: 240, requiredBreakMinutes: 30, employeeRequestRecorded: true))
        #expect(!BreakWaiver.waives(workDate: after, netWorkMinutes: 241, requiredBreakMinutes: 30, employeeRequestRecorded: true))
    }

    // MARK: Overtime and part-time excess (rules 1, 4, 6)

    @Test("Overtime daily: beyond 8 h of the shift-start day")
    func overtime_dailyBeyond8Hours() throws {
        let r = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480),
            shifts: [TT.shift("2026-11-03T08:00", "2026-11-03T12:00"), TT.shift("2026-11-03T13:00", "2026-11-03T19:00")]))
        #expect(r.minutes.regular == 480 && r.minutes.overtime == 120)
        #expect(r.lines(.overtime).first?.amount == 10_320)
        #expect(r.lines(.overtime).first?.method == "2h × 10,320원 × 0.5")
    }

    @Test("Overtime weekly: beyond 40 h of the week holding the shift-start day")
    func overtime_weeklyBeyond40Hours() throws {
        // Six 8-hour days Mon–Sat: Saturday is 40 h → 48 h, all 연장.
        let shifts = TT.daily(TT.dates("2026-11-02", "2026-11-07", on: TT.monToFri.union([.sat])), "09:00", "18:00", breakMinutes: 60)
        let r = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), shifts: shifts))
        #expect(r.minutes.regular == 2400 && r.minutes.overtime == 480)
        // With weekStart Wednesday the same days split over two weeks: no weekly overtime.
        let wed = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), weekStart: .wed, shifts: shifts))
        #expect(wed.minutes.overtime == 0)
    }

    @Test("Overtime is classified at 5인 미만 but has no premium there; `always` pays it")
    func overtime_underFive() throws {
        let shift = [TT.shift("2026-11-03T08:00", "2026-11-03T19:00", breakMinutes: 60)]
        let r = try EarningsCalculator.compute(TT.input(period: november, fiveOrMore: false, schedule: TT.weekdays(480), shifts: shift))
        #expect(r.minutes.overtime == 120 && r.lines(.overtime).isEmpty && r.warnings.isEmpty)
        let always = try EarningsCalculator.compute(TT.input(period: november, fiveOrMore: false, schedule: TT.weekdays(480),
                                                             overtimeAllowance: .always, shifts: shift))
        #expect(always.amount(.overtime) == 10_320)
        let never = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480),
                                                            overtimeAllowance: .never, shifts: shift))
        #expect(never.lines(.overtime).isEmpty && never.warnings(.statutoryAllowanceOmitted).count == 1)
    }

    @Test("Part-time excess (기간제법 §6③): beyond the day's 소정 at 5인 이상 only, until §56 overtime takes over")
    func partTimeExcess_onlyAtFiveOrMore() throws {
        // 6 h 소정, worked 10 h: 2 h excess then 2 h 연장.
        let shift = [TT.shift("2026-11-03T08:00", "2026-11-03T18:00")]
        let five = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(360), shifts: shift))
        #expect(five.minutes.regular == 360 && five.minutes.partTimeExcess == 120 && five.minutes.overtime == 120)
        #expect(five.amount(.partTimeExcess) == 10_320 && five.amount(.overtime) == 10_320)
        let under = try EarningsCalculator.compute(TT.input(period: november, fiveOrMore: false, schedule: TT.weekdays(360), shifts: shift))
        #expect(under.minutes.partTimeExcess == 0 && under.minutes.regular == 480 && under.minutes.overtime == 120)
        let underAlways = try EarningsCalculator.compute(TT.input(period: november, fiveOrMore: false, schedule: TT.weekdays(360),
                                                                  overtimeAllowance: .always, shifts: shift))
        #expect(underAlways.minutes.partTimeExcess == 120)
    }

    @Test("Part-time excess: every minute of an unscheduled day; never for a full-time contract")
    func partTimeExcess_unscheduledDay() throws {
        let saturday = [TT.shift("2026-11-07T10:00", "2026-11-07T14:00")]
        let partTime = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(360), shifts: saturday))
        #expect(partTime.minutes.partTimeExcess == 240 && partTime.minutes.regular == 0)
        let fullTime = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), shifts: saturday))
        #expect(fullTime.minutes.partTimeExcess == 0 && fullTime.minutes.regular == 240)
    }

    // MARK: Attribution and holidays (rules 1, 2, 3)

    @Test("A shift crossing midnight belongs to the day (and week) it started")
    func midnightCrossingShift_attributedToStartDay() throws {
        // Tue 20:00 – Wed 06:00, no break: 10 h of the Tuesday → 2 h daily overtime.
        let r = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480),
                                                        shifts: [TT.shift("2026-11-03T20:00", "2026-11-04T06:00")]))
        #expect(r.minutes.regular == 480 && r.minutes.overtime == 120 && r.minutes.night == 480)
        #expect(r.payByDate.map(\.date) == [TT.date("2026-11-03")])
        // The same hours as two shifts split at midnight: two days of 2 h and 6 h, no overtime.
        let split = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), shifts: [
            TT.shift("2026-11-03T20:00", "2026-11-04T00:00"), TT.shift("2026-11-04T00:00", "2026-11-04T06:00")]))
        #expect(split.minutes.overtime == 0)
        // A Sunday-night shift into Monday counts to the week it started (weekStart Monday).
        let weekly = TT.daily(TT.dates("2026-11-02", "2026-11-06", on: TT.monToFri), "09:00", "18:00", breakMinutes: 60)
            + [TT.shift("2026-11-07T22:00", "2026-11-08T02:00")]
        let five = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), weeklyHoliday: .sat,
                                                           holidayAllowance: .never, shifts: weekly))
        // Saturday is the 주휴일 here → holiday minutes before midnight, Sunday minutes are over 40 h.
        #expect(five.minutes.holiday == 120 && five.minutes.overtime == 120)
    }

    @Test("Holiday is decided per minute by calendar date: a Saturday night shift becomes holiday work at 00:00 Sunday")
    func holiday_byCalendarMinute() throws {
        let shift = [TT.shift("2026-11-07T20:00", "2026-11-08T04:00")]
        let r = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), shifts: shift))
        #expect(r.minutes.regular == 240 && r.minutes.holiday == 240 && r.minutes.night == 360)
        // 4 h × 1 + 4 h × 1 + holiday 4 h × 0.5 + night 6 h × 0.5 = 8 + 2 + 3 = 13 h of pay.
        #expect(r.gross == 13 * 10_320)
        #expect(r.payByDate.map(\.date) == [TT.date("2026-11-07")])
        // The 8-hour holiday counter is per calendar date: a 10 h Sunday → 8 h + 2 h beyond.
        let long = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480),
                                                           shifts: [TT.shift("2026-11-08T08:00", "2026-11-08T18:00")]))
        #expect(long.minutes.holiday == 480 && long.minutes.holidayOver8 == 120)
    }

    @Test("At 5인 미만 no day is a 휴일 for classification unless holidayAllowance is always")
    func holiday_notAtUnderFive() throws {
        let sunday = [TT.shift("2026-11-08T09:00", "2026-11-08T13:00")]
        let under = try EarningsCalculator.compute(TT.input(period: november, fiveOrMore: false, schedule: TT.weekdays(480), shifts: sunday))
        #expect(under.minutes.holiday == 0 && under.minutes.regular == 240 && under.lines(.holidayWork).isEmpty)
        let always = try EarningsCalculator.compute(TT.input(period: november, fiveOrMore: false, schedule: TT.weekdays(480),
                                                             holidayAllowance: .always, shifts: sunday))
        #expect(always.minutes.holiday == 240 && always.amount(.holidayWork) == 20_640)
    }

    @Test("Only minutes inside the period are counted, but earlier minutes feed the counters")
    func periodBoundary() throws {
        // Sat 10-31 20:00 – Sun 11-01 06:00 at 5인 미만: 4 h in October, 6 h in November;
        // the daily counter of 10-31 reaches 8 h at 04:00, so November holds 4 h regular + 2 h 연장.
        let r = try EarningsCalculator.compute(TT.input(period: november, fiveOrMore: false, schedule: TT.weekdays(480),
                                                        shifts: [TT.shift("2026-10-31T20:00", "2026-11-01T06:00")]))
        #expect(r.minutes.worked == 360 && r.minutes.regular == 240 && r.minutes.overtime == 120)
        #expect(r.payByDate.map(\.date) == [TT.date("2026-10-31")])  // pay follows the shift-start day
    }

    // MARK: Rates (rule 9)

    @Test("Monthly: D = 209 for 40 h, rate printed 3,000,000원/209; proration by employed calendar days")
    func monthly_209AndProration() throws {
        let rules = try WorkingTimeRules.resolve(periodStart: TT.date("2026-11-01"), periodEnd: TT.date("2026-11-30"))
        #expect(OrdinaryHourlyWage.monthlyHoursDivisor(weeklyScheduledMinutes: 2400, rules: rules) == 209)
        #expect(OrdinaryHourlyWage.monthlyHoursDivisor(weeklyScheduledMinutes: 1800, rules: rules) == 156)  // 36 × 365/84 = 156.43
        #expect(OrdinaryHourlyWage.monthlyHoursDivisor(weeklyScheduledMinutes: 840, rules: rules) == 61)    // 14 h, no 주휴: 60.83
        let shifts = TT.daily(TT.dates("2026-11-02", "2026-11-06", on: TT.monToFri), "09:00", "19:00", breakMinutes: 60)
        let r = try EarningsCalculator.compute(TT.input(period: november, wageType: .monthly, wage: 3_000_000,
                                                        schedule: TT.weekdays(480), hiredOn: "2026-11-02", shifts: shifts))
        let base = r.lines(.basePay)
        #expect(base.count == 2)
        #expect(base[0].amount == 2_900_000 && base[0].method == "월급 3,000,000원 × 29/30" && base[0].multiplier == "29/30")
        #expect(base[0].rate == nil && base[0].minutes == 2400)
        #expect(base[1].rate == Rational(3_000_000, 209) && base[1].minutes == 300)
        #expect(base[1].method == "5h × 3,000,000원/209")
        #expect(base[1].amount == 71_771)                   // ⌈300 × 3,000,000 / 209 / 60⌉ = ⌈71,770.33⌉
        #expect(r.amount(.overtime) == 35_886)              // ⌈35,885.17⌉
        // A period across two months prorates each month by its own length.
        let across = try EarningsCalculator.compute(TT.input(period: ("2026-11-15", "2026-12-14"), wageType: .monthly, wage: 3_000_000,
                                                             schedule: TT.weekdays(480), shifts: []))
        #expect(across.lines(.basePay)[0].method == "월급 3,000,000원 × (16/30 + 14/31)")
        #expect(across.lines(.basePay)[0].amount == 2_954_839)  // ⌈3,000,000 × 916/930⌉
        #expect(across.pay(on: "2026-12-14") == Rational(3_000_000) * Rational(916, 930))
    }

    @Test("Daily wage: rate = wage × 60 / (weekly 소정 / scheduled days)")
    func dailyWage_rate() throws {
        let rules = try WorkingTimeRules.resolve(periodStart: TT.date("2026-11-01"), periodEnd: TT.date("2026-11-30"))
        func rate(_ wage: Int64, _ schedule: [Int32]) throws -> Rational {
            try OrdinaryHourlyWage.rate(Contract(wageType: .daily, wageWon: wage, scheduleMinutes: schedule), rules: rules)
        }
        #expect(try rate(82_560, TT.weekdays(480)) == Rational(10_320))
        #expect(try rate(61_920, TT.weekdays(360)) == Rational(10_320))
        #expect(try rate(100_000, TT.schedule([.mon: 420, .wed: 420, .fri: 360])) == Rational(1_500_000, 100))  // 400 min a day
        let r = try EarningsCalculator.compute(TT.input(period: november, wageType: .daily, wage: 82_560, schedule: TT.weekdays(480),
                                                        shifts: [TT.shift("2026-11-03T09:00", "2026-11-03T18:00", breakMinutes: 60)]))
        #expect(r.amount(.basePay) == 82_560 && r.lines(.basePay)[0].method == "8h × 10,320원")
        #expect(throws: PayrollError.self) { try rate(80_000, TT.schedule([:])) }
    }

    // MARK: Paid holidays (rule 8)

    @Test("Paid holiday: a calendar date on a scheduled weekday pays that day's 소정 at 5인 이상 only; 5인 미만 gets May 1")
    func paidHoliday_bySizeAndSchedule() throws {
        let part = TT.schedule([.mon: 300, .tue: 240, .wed: 300])
        // 2026-05: 05-01 Fri (노동절), 05-05 Tue (어린이날), 05-25 Mon (대체공휴일).
        let five = try EarningsCalculator.compute(TT.input(period: ("2026-05-01", "2026-05-31"), schedule: TT.schedule([.mon: 300, .tue: 240, .wed: 300, .fri: 60]), shifts: []))
        #expect(five.minutes.paidHoliday == 60 + 240 + 300)
        #expect(five.lines(.paidHoliday).first?.method == "10h × 10,320원 (05-01, 05-05, 05-25)")
        let under = try EarningsCalculator.compute(TT.input(period: ("2026-05-01", "2026-05-31"), fiveOrMore: false,
                                                            schedule: TT.schedule([.mon: 300, .tue: 240, .wed: 300, .fri: 60]), shifts: []))
        #expect(under.minutes.paidHoliday == 60)
        #expect(under.pay(on: "2026-05-01") == Rational(10_320))
        // Not on an unscheduled day (05-01 is a Friday, unscheduled in `part`), nor below 15 h a week.
        let unscheduled = try EarningsCalculator.compute(TT.input(period: ("2026-05-01", "2026-05-03"), schedule: part, shifts: []))
        #expect(unscheduled.minutes.paidHoliday == 0)
        let short = try EarningsCalculator.compute(TT.input(period: ("2026-05-01", "2026-05-31"), schedule: TT.weekdays(170), shifts: []))
        #expect(short.minutes.paidHoliday == 0)
        let monthly = try EarningsCalculator.compute(TT.input(period: ("2026-05-01", "2026-05-31"), wageType: .monthly, wage: 2_500_000,
                                                              schedule: TT.weekdays(480), shifts: []))
        #expect(monthly.lines(.paidHoliday).isEmpty)
    }

    // MARK: Premiums and switches (§1.3)

    @Test("Night premium follows nightAllowance: statutory at 5인 이상, always at any size, never warns")
    func night_switches() throws {
        let shift = [TT.shift("2026-11-03T20:00", "2026-11-04T00:00")]
        let never = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), nightAllowance: .never, shifts: shift))
        #expect(never.lines(.night).isEmpty && never.warnings(.statutoryAllowanceOmitted).count == 1)
        let always = try EarningsCalculator.compute(TT.input(period: november, fiveOrMore: false, schedule: TT.weekdays(480),
                                                             nightAllowance: .always, shifts: shift))
        #expect(always.amount(.night) == 10_320 && always.warnings(.statutoryAllowanceOmitted).isEmpty)
    }

    @Test("Stacking: 연장+야간 2.0, 휴일 8 h+야간 2.0, 휴일 beyond 8 h+야간 2.5 (per hour of 10,000원)")
    func premiums_stacking() throws {
        func perHour(_ start: String, _ end: String, prior: [Shift] = []) throws -> Int64 {
            let all = try EarningsCalculator.compute(TT.input(period: november, wage: 10_000, schedule: TT.weekdays(480),
                                                              shifts: prior + [TT.shift(start, end)]))
            let before = try EarningsCalculator.compute(TT.input(period: november, wage: 10_000, schedule: TT.weekdays(480), shifts: prior))
            return all.gross - before.gross
        }
        // Tuesday 14:00–23:00: 22:00–23:00 is beyond 8 h and night.
        #expect(try perHour("2026-11-03T14:00", "2026-11-03T23:00") == 8 * 10_000 + 20_000)
        // Sunday 22:00–23:00 alone: holiday first tier + night = 2.0.
        #expect(try perHour("2026-11-08T22:00", "2026-11-08T23:00") == 20_000)
        // Sunday 13:00–23:00: 21:00–22:00 beyond 8 h (2.0), 22:00–23:00 beyond 8 h + night (2.5).
        #expect(try perHour("2026-11-08T13:00", "2026-11-08T23:00") == 8 * 15_000 + 20_000 + 25_000)
    }

    // MARK: Minimum wage (§1.5)

    @Test("Minimum wage: a warning per work date naming the date and the shortfall, keyed on the minute's date")
    func minimumWage_perWorkDate() throws {
        let r = try EarningsCalculator.compute(TT.input(period: november, wage: 10_000, schedule: TT.weekdays(360),
            shifts: TT.daily([TT.date("2026-11-03"), TT.date("2026-11-05")], "09:00", "15:00")))
        let w = r.warnings(.belowMinimumWage)
        #expect(w.map(\.date) == [TT.date("2026-11-03"), TT.date("2026-11-05")])
        #expect(w.first?.message.contains("shortfall 320원/h × 6h = 1,920원") == true)
        // 10,100원 across New Year 2025 → 2026: fine on 12-31 (10,030), short on 01-01 (10,320).
        let ny = try EarningsCalculator.compute(TT.input(period: ("2025-12-01", "2026-01-31"), wage: 10_100, schedule: TT.weekdays(360),
                                                         shifts: [TT.shift("2025-12-31T22:00", "2026-01-01T02:00")]))
        #expect(ny.warnings(.belowMinimumWage).map(\.date) == [TT.date("2026-01-01")])
        // Monthly: the ordinary hourly wage is compared (2,000,000 / 209 = 9,569.4 < 10,320).
        let monthly = try EarningsCalculator.compute(TT.input(period: november, wageType: .monthly, wage: 2_000_000,
                                                              schedule: TT.weekdays(480), shifts: []))
        #expect(monthly.warnings(.belowMinimumWage).count == 1)
        let ok = try EarningsCalculator.compute(TT.input(period: november, wageType: .monthly, wage: 2_156_880,
                                                         schedule: TT.weekdays(480), shifts: []))
        #expect(ok.warnings.isEmpty)
    }

    // MARK: Lines and text (rule 10)

    @Test("Lines: amount = ⌈minutes × rate × multiplier / 60⌉; zero lines omitted but base_pay kept")
    func lines_roundedUpAndBaseKept() throws {
        let r = try EarningsCalculator.compute(TT.input(period: november, wage: 10_001, schedule: TT.weekdays(480),
                                                        shifts: [TT.shift("2026-11-03T09:00", "2026-11-03T09:07")]))
        #expect(r.earnings.map(\.code) == [.basePay])
        #expect(r.earnings[0].amount == 1_167)  // 7 × 10,001 / 60 = 1,166.78
        #expect(r.earnings[0].method == "7m × 10,001원")
        let empty = try EarningsCalculator.compute(TT.input(period: november, schedule: TT.weekdays(480), shifts: []))
        #expect(empty.earnings.map(\.code) == [.basePay] && empty.earnings[0].amount == 0)
    }

    @Test("Method text: hours, fractional 주휴 minutes, rates and multipliers")
    func methodText() {
        #expect(PayMethodText.hours(7200) == "120h")
        #expect(PayMethodText.hours(750) == "12h 30m")
        #expect(PayMethodText.hours(45) == "45m")
        #expect(PayMethodText.hours(fifthsOfMinute: 1001) == "3h 20.2m")
        #expect(PayMethodText.hours(fifthsOfMinute: 1800) == "6h")
        #expect(PayMethodText.rate(Rational(10_320)) == "10,320원")
        #expect(PayMethodText.rate(Rational(3_000_000, 209)) == "3,000,000원/209")
        #expect(PayMethodText.multiplier(halves: 1) == "0.5" && PayMethodText.multiplier(halves: 2) == "1")
    }

    // MARK: Bad input

    @Test("Odd input yields a PayrollError naming the field, never a trap")
    func badInput_isAnError() {
        func field(_ input: PayrollInput) -> String? {
            do { _ = try EarningsCalculator.compute(input); return nil } catch { return error.field }
        }
        let s = TT.weekdays(480)
        #expect(field(TT.input(period: november, schedule: s, shifts: [
            TT.shift("2026-11-03T09:00", "2026-11-03T12:00"), TT.shift("2026-11-03T11:00", "2026-11-03T13:00")])) == "shifts[1].start")
        #expect(field(TT.input(period: november, schedule: s, shifts: [TT.shift("2026-11-03T09:00", "2026-11-03T09:00")])) == "shifts[0].end")
        #expect(field(TT.input(period: november, schedule: s,
                               shifts: [TT.shift("2026-11-03T09:00", "2026-11-03T09:20", breakMinutes: 30)])) == "shifts[0].breakMinutes")
        #expect(field(TT.input(period: november, schedule: s, shifts: [TT.shift("2026-11-03T09:00", "2026-11-03T10:00",
            breaks: [("2026-11-03T09:30", "2026-11-03T10:30")])])) == "shifts[0].breaks[0].start")
        #expect(field(TT.input(period: ("2026-11-30", "2026-11-01"), schedule: s, shifts: [])) == "periodEnd")
        #expect(field(TT.input(period: november, wage: 0, schedule: s, shifts: [])) == "contract.wage")
        #expect(field(TT.input(period: ("2023-11-01", "2023-11-30"), schedule: s, shifts: [])) == "periodEnd")
        var badSchedule = TT.input(period: november, schedule: s, shifts: [])
        badSchedule.contract.scheduleMinutes = [480]
        #expect(field(badSchedule) == "contract.schedule")
        #expect(field(TT.input(period: november, wageType: .monthly, wage: 3_000_000, schedule: TT.schedule([:]), shifts: [])) == "contract.schedule")
    }
}
