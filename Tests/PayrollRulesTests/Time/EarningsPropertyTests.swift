import Testing
@testable import PayrollRules

/// Properties over generated inputs (seeded, deterministic; a few hundred cases each).
@Suite("Earnings properties")
struct EarningsPropertyTests {
    static let cases = 300

    @Test("Segment classifier == per-minute oracle (buckets, per shift-start day, worked-time lines)")
    func segmentEngineEqualsMinuteOracle() throws {
        var g = InputGenerator(seed: 0x5EED_0001)
        for n in 0..<Self.cases {
            let input = g.input()
            let r = try EarningsCalculator.compute(input)
            let oracle = MinuteOracle(input)
            var mine = r.minutes
            mine.weeklyAllowance = 0
            mine.paidHoliday = 0
            let rules = try WorkingTimeRules.resolve(periodStart: input.periodStart, periodEnd: input.periodEnd)
            let work = try WorkClassifier.classify(input.shifts, WorkClassifier.Config(
                input, rules: rules, calendar: input.workplace.holidays ?? .korea, collectsCalendarDays: false))
            var perDay: [LocalDate: [Int64]] = [:]
            for d in work.byStartDay {
                perDay[DayMath.date(d.day)] = [d.regular, d.overtime, d.partTimeExcess, d.holiday, d.holidayOver8, d.night]
            }
            let rate = try OrdinaryHourlyWage.rate(input.contract, rules: rules)
            let oracleLines = MinuteOracle.workedTimeLines(oracle.buckets, input, rate: rate)
            // Stop at the first disagreement: one readable report instead of hundreds.
            guard mine == oracle.buckets, perDay == oracle.byStartDay, r.workedTimeLineKeys == oracleLines else {
                Issue.record("case \(n): segment \(mine) vs oracle \(oracle.buckets); lines \(r.workedTimeLineKeys) vs \(oracleLines)")
                break
            }
        }
    }

    @Test("Bucket minutes add up to worked minutes; night within worked; no negative amount; lines ≥ exact pay by date")
    func bucketsAddUpAndAmountsAreSane() throws {
        var g = InputGenerator(seed: 0x5EED_0002)
        for n in 0..<Self.cases {
            let r = try EarningsCalculator.compute(g.input())
            let m = r.minutes
            #expect(m.worked == m.regular + m.overtime + m.partTimeExcess + m.holiday + m.holidayOver8, "case \(n)")
            #expect(m.night <= m.worked && m.night >= 0, "case \(n)")
            #expect(r.earnings.allSatisfy { $0.amount >= 0 }, "case \(n)")
            #expect(r.payByDate.allSatisfy { $0.amount >= .zero }, "case \(n)")
            #expect(zip(r.payByDate, r.payByDate.dropFirst()).allSatisfy { $0.date < $1.date }, "case \(n)")
            // Each line is rounded up once: Σ lines − Σ exact pay by date ∈ [0, number of lines).
            let exact = r.payByDate.reduce(Rational.zero) { $0 + $1.amount }
            let slack = Rational(r.gross) - exact
            #expect(slack >= .zero && slack < Rational(Int64(r.earnings.count)), "case \(n): slack \(slack)")
        }
    }

    @Test("Splitting a break-free shift at any minute of its start day changes no amount")
    func splittingWithinTheStartDayChangesNothing() throws {
        // Covers: every size, wage type and switch; the split point t satisfies day(t) == day(start),
        // so the shift-start day (daily counter, week, 소정 of the day, 주휴 attendance) is unchanged.
        // Breaks are excluded because a split moves a midpoint break; §54 warnings may differ.
        var g = InputGenerator(seed: 0x5EED_0003)
        var checked = 0
        for n in 0..<Self.cases {
            let input = g.input(breaks: .none)
            guard !input.shifts.isEmpty else { continue }
            let i = g.int(0...input.shifts.count - 1)
            let s = input.shifts[i].start.value, e = input.shifts[i].end.value
            let dayEnd = (DayMath.day(ofMinute: s) + 1) * 1440
            let last = min(e, dayEnd) - 1
            guard last > s else { continue }
            let t = Int64(g.int(Int(s + 1)...Int(last)))
            var split = input
            split.shifts.replaceSubrange(i...i, with: [
                Shift(start: KoreaMinute(s), end: KoreaMinute(t), breakMinutes: 0),
                Shift(start: KoreaMinute(t), end: KoreaMinute(e), breakMinutes: 0),
            ])
            let a = try EarningsCalculator.compute(input), b = try EarningsCalculator.compute(split)
            #expect(a.earnings == b.earnings, "case \(n)")
            #expect(a.minutes == b.minutes, "case \(n)")
            #expect(a.payByDate == b.payByDate, "case \(n)")
            checked += 1
        }
        #expect(checked > Self.cases / 2)
    }

    @Test("Splitting a break-free shift at midnight changes no amount at 5인 미만 (hourly/daily, statutory premiums)")
    func splittingAtMidnightUnderFiveChangesNoAmount() throws {
        // Covers: 5인 미만 hourly and daily wages, statutory overtime/night/holiday switches, 주휴
        // switched off (a new shift-start day can change 개근) — where every
        // worked minute is paid ×1, so moving minutes to the next day's counters changes no amount.
        // (At 5인 이상 a midnight split may legitimately change 연장 and 단시간 초과 attribution.)
        var g = InputGenerator(seed: 0x5EED_0004)
        var checked = 0
        for n in 0..<Self.cases {
            var input = g.input(breaks: .none, fiveOrMore: false)
            // A monthly salary pays 연장 minutes an extra ×1 (pinned rule 9), so attribution matters there.
            guard input.contract.wageType != .monthly else { continue }
            input.contract.overtimeAllowance = .statutory
            input.contract.nightAllowance = .statutory
            input.contract.holidayAllowance = .statutory
            input.contract.weeklyAllowance = .never
            guard let i = input.shifts.firstIndex(where: {
                DayMath.day(ofMinute: $0.start.value) != DayMath.day(ofMinute: $0.end.value - 1)
            }) else { continue }
            let s = input.shifts[i].start.value, e = input.shifts[i].end.value
            let midnight = (DayMath.day(ofMinute: s) + 1) * 1440
            var split = input
            split.shifts.replaceSubrange(i...i, with: [
                Shift(start: KoreaMinute(s), end: KoreaMinute(midnight), breakMinutes: 0),
                Shift(start: KoreaMinute(midnight), end: KoreaMinute(e), breakMinutes: 0),
            ])
            let a = try EarningsCalculator.compute(input), b = try EarningsCalculator.compute(split)
            #expect(a.earnings.map(\.amount) == b.earnings.map(\.amount), "case \(n)")
            #expect(a.minutes.worked == b.minutes.worked && a.minutes.night == b.minutes.night, "case \(n)")
            checked += 1
        }
        #expect(checked > 20)
    }

    @Test("An empty shift list pays no worked time; with 주휴 off and no holidays it pays nothing")
    func emptyShiftsPayNothing() throws {
        var g = InputGenerator(seed: 0x5EED_0005)
        for n in 0..<Self.cases {
            var input = g.input(emptyShifts: true, plainCalendar: true)
            let r = try EarningsCalculator.compute(input)
            #expect(r.minutes.worked == 0 && r.minutes.night == 0, "case \(n)")
            #expect(r.earnings.filter { [.overtime, .partTimeExcess, .night, .holidayWork].contains($0.code) }.isEmpty, "case \(n)")
            if input.contract.wageType != .monthly {
                #expect(r.earnings.first?.code == .basePay && r.earnings.first?.amount == 0, "case \(n)")
                input.contract.weeklyAllowance = .never
                let off = try EarningsCalculator.compute(input)
                #expect(off.earnings.map(\.amount) == [0], "case \(n)")
            }
        }
    }

    @Test("Same input, same output")
    func deterministic() throws {
        var g = InputGenerator(seed: 0x5EED_0006)
        for n in 0..<Self.cases {
            let input = g.input()
            let a = try EarningsCalculator.compute(input), b = try EarningsCalculator.compute(input)
            #expect(a.earnings == b.earnings && a.minutes == b.minutes && a.warnings == b.warnings && a.payByDate == b.payByDate,
                    "case \(n)")
        }
    }
}
