import Testing
@testable import PayrollRules

/// "Bad input never crashes": seeded random requests, valid and corrupted, through the whole
/// single-employee path. Each must give a payslip that passes its invariants or a PayrollError.
@Suite("calc API: robustness (seeded random requests)")
struct CalcAPIRobustnessTests {
    /// SplitMix64: small, seeded, reproducible.
    struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
        }
        mutating func pick<T>(_ xs: [T]) -> T { xs[int(0...(xs.count - 1))] }
    }

    /// Runs one request; returns whether a payslip came out.
    @discardableResult
    static func run(_ json: String) -> Bool {
        do {
            let p = try PayrollCalculator.calculate(try CalcRequestDecoder.decode(json))
            #expect(throws: Never.self) { try p.checkInvariants() }
            _ = CalcResponseEncoder.encode(p)
            return true
        } catch {
            #expect(!error.message.isEmpty)
            _ = CalcResponseEncoder.encode(error)
            return false
        }
    }

    @Test("corrupted copies of the golden request (bytes deleted, inserted, replaced) give payslips or errors, never a crash")
    func corruptedRequests() {
        var rng = Rng(state: 20261122)
        let golden = Array(CalcAPIFixture.golden.utf8)
        let alphabet = Array(#"{}[]:,"0123456789-+.eE tfn\u"#.utf8) + [0x00, 0x0A, 0xFF, 0xC3]
        for _ in 0..<400 {
            var bytes = golden
            for _ in 0..<rng.int(1...3) {
                let i = rng.int(0...(bytes.count - 1))
                switch rng.int(0...2) {
                case 0: bytes.removeSubrange(i..<min(bytes.count, i + rng.int(1...20)))
                case 1: bytes.insert(rng.pick(alphabet), at: i)
                default: bytes[i] = rng.pick(alphabet)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            bytes.withUnsafeBufferPointer { b in
                do throws(PayrollError) {
                    let p = try PayrollCalculator.calculate(try CalcRequestDecoder.decode(b))
                    #expect(throws: Never.self) { try p.checkInvariants() }
                } catch {
                    #expect(!error.message.isEmpty)
                }
            }
        }
    }

    @Test("random well-formed requests (every wage type, switch, tax mode, odd schedules and breaks, extreme amounts) give payslips or errors")
    func randomRequests() {
        var rng = Rng(state: 42)
        var computed = 0
        let total = 300
        for _ in 0..<total {
            let wageType = rng.pick(["hourly", "daily", "monthly"])
            let wage = rng.pick([1, 9_860, 10_320, 10_321, 95_000, 2_156_880, 12_000_000, 1_000_000_000])
            let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
            let schedule = days.compactMap { d -> String? in
                rng.int(0...2) == 0 ? nil : #""\#(d)": \#(rng.pick([0, 1, 59, 180, 240, 360, 480, 600, 1440]))"#
            }.joined(separator: ", ")
            var contractFields = [#""wageType": "\#(wageType)""#, #""wage": \#(wage)"#, #""schedule": {\#(schedule)}"#]
            for key in ["weeklyAllowance", "nightAllowance", "overtimeAllowance", "holidayAllowance"] where rng.int(0...1) == 0 {
                contractFields.append(#""\#(key)": "\#(rng.pick(["statutory", "always", "never"]))""#)
            }
            if rng.int(0...1) == 0 { contractFields.append(#""tax": "\#(rng.pick(["simplified", "business33", "daily", "none"]))""#) }
            if rng.int(0...2) == 0 { contractFields.append(#""weekStart": "\#(rng.pick(days))", "weeklyHoliday": "\#(rng.pick(days))""#) }
            if rng.int(0...2) == 0 { contractFields.append(#""defaultBreakMinutes": \#(rng.pick([0, 15, 30, 60]))"#) }
            if rng.int(0...2) == 0 {
                contractFields.append(#""nonTaxable": {"meals": \#(rng.pick([0, 1, 200_000, 200_001, 1_000_000_000])), "carAllowance": \#(rng.pick([0, 150_000])), "childcare": \#(rng.pick([0, 300_000]))}"#)
            }
            if rng.int(0...2) == 0 {
                contractFields.append(#""insuranceBase": {"nationalPension": \#(rng.pick(["null", "0", "300000", "7000000"])), "health": \#(rng.pick(["null", "0", "150000000"])), "employment": \#(rng.pick(["null", "0", "1000000000"]))}"#)
            }
            if rng.int(0...3) == 0 { contractFields.append(#""insurance": {"nationalPension": false, "health": \#(rng.int(0...1) == 0)}"#) }

            // Period inside 2025-01 … 2026-12, up to 31 days.
            let start = LocalDate(year: 2025, month: 1, day: 1)!.adding(days: rng.int(0...700))
            let end = start.adding(days: rng.int(0...30))
            let payDate = end.adding(days: rng.int(0...20))
            var shifts: [String] = []
            var cursor = KoreaMinute(date: start.adding(days: -7), minuteOfDay: 0).adding(minutes: Int64(rng.int(0...600)))
            for _ in 0..<rng.int(0...45) {
                let length = rng.pick([1, 30, 239, 240, 360, 480, 481, 600, 720, 1440])
                let s = cursor, e = cursor.adding(minutes: Int64(length))
                if e.date > end.adding(days: 7) { break }
                var extra = ""
                switch rng.int(0...3) {
                case 0: extra = #", "breakMinutes": \#(rng.int(0...max(0, length - 1)))"#
                case 1 where length >= 3:
                    let b0 = s.adding(minutes: Int64(rng.int(0...(length / 2 - 1))))
                    extra = #", "breaks": [{"start": "\#(b0)", "end": "\#(b0.adding(minutes: 1))"}]"#
                default: break
                }
                shifts.append(#"{"start": "\#(s)", "end": "\#(e)"\#(extra)}"#)
                cursor = e.adding(minutes: Int64(rng.pick([0, 30, 480, 600, 1440, 2000])))
            }
            let holidays = rng.int(0...2) == 0 ? #", "holidays": ["\#(start.adding(days: rng.int(0...30)))"]"# : ""
            let hired = rng.int(0...3) == 0 ? #", "hiredOn": "\#(start.adding(days: rng.int(-10...20)))""# : ""
            let family = rng.int(1...12)
            let json = #"{"periodStart": "\#(start)", "periodEnd": "\#(end)", "payDate": "\#(payDate)", "workplace": {"fiveOrMore": \#(rng.int(0...1) == 0)\#(holidays)}, "employee": {"id": "r", "family": \#(family), "children8to20": \#(rng.int(0...(family - 1)))\#(hired)}, "contract": {\#(contractFields.joined(separator: ", "))}, "shifts": [\#(shifts.joined(separator: ", "))]}"#
            if Self.run(json) { computed += 1 }
        }
        // Most random requests are computable; a generator that only produced errors would test little.
        #expect(computed > total / 2, "only \(computed) of \(total) computed")
    }
}
