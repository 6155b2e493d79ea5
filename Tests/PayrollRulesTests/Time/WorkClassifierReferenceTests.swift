import Testing
@testable import PayrollRules

/// The production `WorkClassifier` against two references on generated shifts crowded around the
/// boundaries its arithmetic cuts at (00:00, 06:00, 22:00, the 8 h / 40 h / 소정 thresholds, week
/// starts, 휴일 and the days next to them), including adjacent and back-to-back shifts and breaks
/// at a shift's very start or end: the session-6 classifier kept verbatim
/// (`ReferenceWorkClassifier`: every output field and every warning, and the same error for bad
/// shifts) and the per-minute `MinuteOracle` (buckets and per-start-day minutes).
@Suite("WorkClassifier == references on boundary-heavy shifts")
struct WorkClassifierReferenceTests {
    static let cases = 400

    /// Every field of two classifications, as comparable values.
    struct Snapshot: Equatable, CustomStringConvertible {
        var buckets: MinuteBuckets
        var byStartDay: [DayMinutes]
        var byCalendarDay: [[Int64]]
        var shiftStartDays: [Int64]
        var warnings: [PayrollWarning]

        init(_ w: ClassifiedWork) {
            buckets = w.buckets
            byStartDay = w.byStartDay
            byCalendarDay = w.byCalendarDay.map { [$0.day, $0.minutes] }
            shiftStartDays = w.shiftStartDays
            warnings = w.warnings
        }

        var description: String {
            "buckets \(buckets)\nbyStartDay \(byStartDay)\nbyCalendarDay \(byCalendarDay)\nstartDays \(shiftStartDays)\nwarnings \(warnings.map(\.message))"
        }
    }

    static func classify(_ input: PayrollInput, collectsCalendarDays: Bool, reference: Bool) throws(PayrollError) -> Snapshot {
        let rules = try WorkingTimeRules.resolve(periodStart: input.periodStart, periodEnd: input.periodEnd)
        let config = WorkClassifier.Config(input, rules: rules, calendar: input.workplace.holidays ?? .korea,
                                           collectsCalendarDays: collectsCalendarDays)
        return Snapshot(reference ? try ReferenceWorkClassifier.classify(input.shifts, config)
                                  : try WorkClassifier.classify(input.shifts, config))
    }

    static func outcome(_ input: PayrollInput, collectsCalendarDays: Bool, reference: Bool) -> Result<Snapshot, PayrollError> {
        do throws(PayrollError) {
            return .success(try classify(input, collectsCalendarDays: collectsCalendarDays, reference: reference))
        } catch {
            return .failure(error)
        }
    }

    @Test("every output field and warning equals the session-6 classifier's (calendar days collected or not)")
    func equalsFrozenReference() throws {
        var g = BoundaryShiftGenerator(seed: 0xC1A5_0001)
        var warned = 0, fastPathDays = 0
        for n in 0..<Self.cases {
            let input = g.input()
            for collects in [false, true] {
                let mine = try Self.classify(input, collectsCalendarDays: collects, reference: false)
                let reference = try Self.classify(input, collectsCalendarDays: collects, reference: true)
                guard mine == reference else {
                    Issue.record("case \(n) (collects \(collects)):\nmine\n\(mine)\nreference\n\(reference)")
                    return
                }
                if !collects {
                    warned += mine.warnings.isEmpty ? 0 : 1
                    fastPathDays += mine.byStartDay.filter { $0.worked == $0.regular && $0.night == 0 }.count
                }
            }
        }
        // The generator reaches the paths it is meant to (warnings, whole-shift regular days).
        #expect(warned > Self.cases / 10)
        #expect(fastPathDays > Self.cases)
    }

    @Test("generated everyday inputs (InputGenerator) classify as the session-6 classifier does")
    func equalsFrozenReferenceOnEverydayInputs() throws {
        var g = InputGenerator(seed: 0xC1A5_0002)
        for n in 0..<Self.cases {
            let input = g.input()
            let mine = try Self.classify(input, collectsCalendarDays: true, reference: false)
            let reference = try Self.classify(input, collectsCalendarDays: true, reference: true)
            guard mine == reference else {
                Issue.record("case \(n):\nmine\n\(mine)\nreference\n\(reference)")
                return
            }
        }
    }

    @Test("buckets and per-start-day minutes equal the per-minute oracle on boundary-heavy shifts")
    func equalsMinuteOracle() throws {
        var g = BoundaryShiftGenerator(seed: 0xC1A5_0003)
        for n in 0..<Self.cases / 4 {  // the oracle walks every minute
            let input = g.input()
            let mine = try Self.classify(input, collectsCalendarDays: false, reference: false)
            let oracle = MinuteOracle(input)
            var perDay: [LocalDate: [Int64]] = [:]
            for d in mine.byStartDay {
                perDay[DayMath.date(d.day)] = [d.regular, d.overtime, d.partTimeExcess, d.holiday, d.holidayOver8, d.night]
            }
            guard mine.buckets == oracle.buckets, perDay == oracle.byStartDay else {
                Issue.record("case \(n): segment \(mine.buckets) vs oracle \(oracle.buckets)")
                return
            }
        }
    }

    @Test("bad shifts (unsorted, overlapping, inverted, breaks outside or negative) give the reference's error")
    func badShiftsGiveTheSameError() {
        var g = BoundaryShiftGenerator(seed: 0xC1A5_0004)
        var failures = 0
        for n in 0..<Self.cases {
            let input = g.damaged(g.input())
            let mine = Self.outcome(input, collectsCalendarDays: false, reference: false)
            let reference = Self.outcome(input, collectsCalendarDays: false, reference: true)
            if case .failure = mine { failures += 1 }
            switch (mine, reference) {
            case (.success(let a), .success(let b)) where a == b: continue
            case (.failure(let a), .failure(let b)) where a == b: continue
            default:
                Issue.record("case \(n): mine \(mine) vs reference \(reference)")
                return
            }
        }
        #expect(failures > Self.cases / 2)
    }
}

/// Inputs whose shifts start and end on or next to the classifier's cut points, on consecutive
/// days across week starts and 휴일, sometimes back to back, with every break style.
struct BoundaryShiftGenerator {
    var g: InputGenerator

    init(seed: UInt64) { g = InputGenerator(seed: seed) }

    /// Minutes of the day the classifier cuts at, and their neighbours.
    static let cutMinutes: [Int] = [0, 1, 359, 360, 361, 1319, 1320, 1321, 1439]
    /// Lengths on and next to the daily thresholds (and a few long ones across midnight).
    static let lengths: [Int] = [1, 2, 59, 239, 240, 241, 270, 479, 480, 481, 540, 541, 600, 720, 779, 780, 960, 1080, 1439, 1440]

    mutating func input() -> PayrollInput {
        var input = g.input(breaks: .none, plainCalendar: false)
        let c = input.contract
        // A calendar of 휴일 crowded on and around a few days of the period (or the built-in one).
        if g.chance(70) {
            var dates: [LocalDate] = []
            for _ in 0..<g.int(1...6) {
                let d = input.periodStart.adding(days: g.int(-8...32))
                dates.append(d)
                if g.chance(50) { dates.append(d.adding(days: 1)) }
            }
            input.workplace.holidays = HolidayCalendar(dates: dates)
        }
        if g.chance(30) {  // a 40 h schedule: overtime by the week, no part-time excess
            input.contract.scheduleMinutes = [480, 480, 480, 480, 480, 0, 0]
        }
        var shifts: [Shift] = []
        var t = KoreaMinute(date: input.periodStart.adding(days: -8), minuteOfDay: g.pick(Self.cutMinutes)).value
        let stop = KoreaMinute(date: input.periodEnd.adding(days: 8), minuteOfDay: 0).value
        while t < stop {
            let length = Int64(g.chance(70) ? g.pick(Self.lengths) : g.int(1...1440))
            let s = t, e = t + length
            var shift = Shift(start: KoreaMinute(s), end: KoreaMinute(e))
            switch g.int(0...5) {
            case 0: break  // the contract default (if any)
            case 1: shift.breakMinutes = 0
            case 2: shift.breakMinutes = Int32(g.int(0...Int(length - 1)))
            case 3 where length >= 2:  // a break at the very start or the very end (not "during" work)
                let b = Int64(g.int(1...Int(length - 1)))
                shift.breaks = [g.chance(50) ? BreakWindow(start: KoreaMinute(s), end: KoreaMinute(s + b))
                                             : BreakWindow(start: KoreaMinute(e - b), end: KoreaMinute(e))]
            case 4 where length >= 4:  // one or two windows inside, possibly touching
                let a = s + Int64(g.int(1...Int(length / 2)))
                let b = min(e - 1, a + Int64(g.int(1...60)))
                var windows = [BreakWindow(start: KoreaMinute(a), end: KoreaMinute(b))]
                if g.chance(50) && b + 1 < e {
                    let c = b + Int64(g.int(0...Int(min(60, e - b - 2))))
                    windows.append(BreakWindow(start: KoreaMinute(c), end: KoreaMinute(min(e - 1, c + Int64(g.int(1...90))))))
                    if windows[1].end <= windows[1].start { windows.removeLast() }
                }
                shift.breaks = windows
            default: shift.breakMinutes = g.pick([30, 60, 90])
                if Int64(shift.breakMinutes!) >= length { shift.breakMinutes = 0 }
            }
            shifts.append(shift)
            // Back to back, to the next cut point, or a day or more later.
            switch g.int(0...3) {
            case 0: t = e
            case 1: t = e + Int64(g.int(1...90))
            case 2:
                let day = DayMath.day(ofMinute: e) + Int64(g.int(0...1))
                t = max(e, day * 1440 + Int64(g.pick(Self.cutMinutes)))
            default: t = e + Int64(g.int(600...3000))
            }
        }
        input.shifts = shifts
        if c.defaultBreakMinutes == nil && g.chance(30) { input.contract.defaultBreakMinutes = g.pick([0, 30, 60]) }
        // A contract default longer than a shift is an error; keep the generated inputs valid.
        if let d = input.contract.defaultBreakMinutes,
           input.shifts.contains(where: { $0.breaks.isEmpty && $0.breakMinutes == nil && $0.end.value - $0.start.value <= Int64(d) }) {
            input.contract.defaultBreakMinutes = nil
        }
        return input
    }

    /// `input` with one thing broken (or, now and then, nothing).
    mutating func damaged(_ input: PayrollInput) -> PayrollInput {
        var input = input
        guard input.shifts.count >= 2 else { return input }
        let i = g.int(1...input.shifts.count - 1)
        switch g.int(0...6) {
        case 0: input.shifts.swapAt(i, i - 1)
        case 1: input.shifts[i].start = KoreaMinute(input.shifts[i - 1].end.value - 1)
        case 2: input.shifts[i].end = input.shifts[i].start
        case 3: input.shifts[i].breakMinutes = -1; input.shifts[i].breaks = []
        case 4: input.shifts[i].breaks = [BreakWindow(start: input.shifts[i].start, end: KoreaMinute(input.shifts[i].end.value + 1))]
        case 5: input.shifts[i].breakMinutes = Int32(clamping: input.shifts[i].end.value - input.shifts[i].start.value + 1)
                input.shifts[i].breaks = []
        default: break
        }
        return input
    }
}
