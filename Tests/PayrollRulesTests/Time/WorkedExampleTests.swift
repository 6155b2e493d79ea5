import Testing
@testable import PayrollRules

/// The worked examples of §8 of the rules spec, through `EarningsCalculator.compute`.
@Suite("Worked examples (rules spec §8)")
struct WorkedExampleTests {
    /// Example 1: Mon–Fri 17:30–24:00 with a 30-minute break, 2026-11-02 … 11-27, hired 11-02.
    static func example1(period: (String, String), fiveOrMore: Bool = true, year: Int = 2026, wage: Int64 = 10_320) -> PayrollInput {
        let (first, last) = year == 2026 ? ("2026-11-02", "2026-11-27") : ("2025-11-03", "2025-11-28")
        return TT.input(period: period, fiveOrMore: fiveOrMore, wage: wage, schedule: TT.weekdays(360),
                        hiredOn: first, shifts: TT.daily(TT.dates(first, last, on: TT.monToFri), "17:30", "24:00", breakMinutes: 30))
    }

    @Test("Example 1, 5인 이상, period 2026-11-01…11-30 (calc-api request): 1,692,480")
    func example1_fiveOrMore_calcApiPeriod() throws {
        let r = try EarningsCalculator.compute(Self.example1(period: ("2026-11-01", "2026-11-30")))
        #expect(r.minutes.worked == 7200)
        #expect(r.minutes.regular == 7200)
        #expect(r.minutes.night == 2400)
        #expect(r.minutes.weeklyAllowance == 1440)
        #expect(r.minutes.overtime == 0 && r.minutes.partTimeExcess == 0 && r.minutes.holiday == 0 && r.minutes.paidHoliday == 0)
        #expect(r.earnings.map(\.code) == [.basePay, .night, .weeklyAllowance])
        let base = r.lines(.basePay)[0], night = r.lines(.night)[0], weekly = r.lines(.weeklyAllowance)[0]
        #expect(base.amount == 1_238_400 && base.method == "120h × 10,320원" && base.multiplier == "1" && base.rate == Rational(10_320))
        #expect(night.amount == 206_400 && night.method == "40h × 10,320원 × 0.5" && night.multiplier == "0.5" && night.minutes == 2400)
        #expect(weekly.amount == 247_680 && weekly.method == "6h × 4주 × 10,320원" && weekly.minutes == 1440)
        #expect(r.gross == 1_692_480)
        #expect(r.warnings.isEmpty)
        // Pay by date: each workday 6h + 2h night premium; each Sunday 6h of 주휴.
        #expect(r.pay(on: "2026-11-02") == Rational(72_240))
        #expect(r.pay(on: "2026-11-08") == Rational(61_920))
        #expect(r.payByDate.count == 24)
        #expect(r.payByDate.reduce(Rational.zero) { $0 + $1.amount } == Rational(1_692_480))
    }

    @Test("Example 1, period 2026-11-02…11-29 (§8) gives the same earnings")
    func example1_rulesSpecPeriod() throws {
        let a = try EarningsCalculator.compute(Self.example1(period: ("2026-11-01", "2026-11-30")))
        let b = try EarningsCalculator.compute(Self.example1(period: ("2026-11-02", "2026-11-29")))
        #expect(a.earnings == b.earnings)
        #expect(a.minutes == b.minutes)
    }

    @Test("Example 1, 5인 미만: no night premium, 1,486,080")
    func example1_underFive() throws {
        let r = try EarningsCalculator.compute(Self.example1(period: ("2026-11-01", "2026-11-30"), fiveOrMore: false))
        #expect(r.earnings.map(\.code) == [.basePay, .weeklyAllowance])
        #expect(r.amount(.basePay) == 1_238_400 && r.amount(.weeklyAllowance) == 247_680)
        #expect(r.gross == 1_486_080)
        #expect(r.minutes.night == 2400)  // still counted, only not paid
        #expect(r.warnings.isEmpty)       // the law does not require the premium at 5인 미만
    }

    @Test("Example 1, November 2025 at 10,030원: 1,644,920")
    func example1_november2025() throws {
        let r = try EarningsCalculator.compute(Self.example1(period: ("2025-11-01", "2025-11-30"), year: 2025, wage: 10_030))
        #expect(r.amount(.basePay) == 1_203_600)
        #expect(r.amount(.weeklyAllowance) == 240_720)
        #expect(r.amount(.night) == 200_600)
        #expect(r.gross == 1_644_920)
        #expect(r.warnings.isEmpty)
    }

    /// Example 5: the holiday week 2026-10-05 … 10-11, full-time hourly, 5인 이상.
    static func example5() -> PayrollInput {
        TT.input(period: ("2026-10-05", "2026-10-11"), schedule: TT.weekdays(480), shifts: [
            TT.shift("2026-10-06T09:00", "2026-10-06T23:00",
                     breaks: [("2026-10-06T12:00", "2026-10-06T13:00"), ("2026-10-06T18:00", "2026-10-06T18:30")]),
            TT.shift("2026-10-07T09:00", "2026-10-07T18:00", breakMinutes: 60),
            TT.shift("2026-10-08T09:00", "2026-10-08T18:00", breakMinutes: 60),
            TT.shift("2026-10-09T09:00", "2026-10-09T18:00", breakMinutes: 60),
            TT.shift("2026-10-10T10:00", "2026-10-10T14:30", breakMinutes: 30),
        ])
    }

    @Test("Example 5, holiday week: 735,300 with every line and every day of the table")
    func example5_holidayWeek() throws {
        let r = try EarningsCalculator.compute(Self.example5())
        #expect(r.minutes.worked == 2430)
        #expect(r.minutes.regular == 1680)     // Tue 8 + Wed 8 + Thu 8 + Sat 4 = 28 h ≤ 40 h
        #expect(r.minutes.overtime == 270)     // Tue beyond 8 h
        #expect(r.minutes.holiday == 480)      // Fri 10-09 한글날
        #expect(r.minutes.night == 60)
        #expect(r.minutes.paidHoliday == 960)  // Mon 10-05 and Fri 10-09
        #expect(r.minutes.weeklyAllowance == 480)
        #expect(r.amount(.basePay) == 417_960)
        #expect(r.lines(.basePay)[0].method == "40h 30m × 10,320원")
        #expect(r.amount(.overtime) == 23_220)
        #expect(r.lines(.overtime)[0].method == "4h 30m × 10,320원 × 0.5")
        #expect(r.amount(.night) == 5_160)
        #expect(r.lines(.holidayWork).map(\.amount) == [41_280])
        #expect(r.amount(.paidHoliday) == 165_120)
        #expect(r.lines(.paidHoliday)[0].method == "16h × 10,320원 (10-05, 10-09)")
        #expect(r.amount(.weeklyAllowance) == 82_560)
        #expect(r.gross == 735_300)
        // The day-by-day column of the example.
        let table: [(String, Int64)] = [("2026-10-05", 82_560), ("2026-10-06", 157_380), ("2026-10-07", 82_560),
                                        ("2026-10-08", 82_560), ("2026-10-09", 206_400), ("2026-10-10", 41_280),
                                        ("2026-10-11", 82_560)]
        #expect(r.payByDate.map(\.date) == table.map { TT.date($0.0) })
        for (day, amount) in table { #expect(r.pay(on: day) == Rational(amount), "\(day)") }
        #expect(r.warnings.isEmpty)
    }

    @Test("Example 5b: Sunday 13:00–24:00, 1 h break: 175,440, and 주휴 on top when the week is attended")
    func example5b_holidayBeyond8WithNight() throws {
        let sunday = TT.shift("2026-11-08T13:00", "2026-11-09T00:00", breakMinutes: 60)
        let alone = try EarningsCalculator.compute(TT.input(period: ("2026-11-01", "2026-11-30"), schedule: TT.weekdays(480),
                                                            shifts: [sunday]))
        #expect(alone.minutes.holiday == 480 && alone.minutes.holidayOver8 == 120 && alone.minutes.night == 120)
        #expect(alone.amount(.basePay) == 103_200)
        #expect(alone.lines(.holidayWork).map(\.amount) == [41_280, 20_640])
        #expect(alone.lines(.holidayWork).map(\.multiplier) == ["0.5", "1"])
        #expect(alone.amount(.night) == 10_320)
        #expect(alone.amount(.weeklyAllowance) == 0)  // scheduled days not attended
        #expect(alone.gross == 175_440)
        #expect(alone.pay(on: "2026-11-08") == Rational(175_440))

        let week = TT.daily(TT.dates("2026-11-02", "2026-11-06", on: TT.monToFri), "09:00", "18:00", breakMinutes: 60) + [sunday]
        let full = try EarningsCalculator.compute(TT.input(period: ("2026-11-01", "2026-11-30"), schedule: TT.weekdays(480),
                                                           shifts: week))
        #expect(full.amount(.weeklyAllowance) == 82_560)
        #expect(full.pay(on: "2026-11-08") == Rational(175_440 + 82_560))
        #expect(full.minutes.overtime == 0)  // holiday minutes never feed the 40 h pool
    }
}
