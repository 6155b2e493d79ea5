import PayrollRules
import Testing
@testable import PayrollStore

/// The input digest is stored with every payslip and compared across runs, so its bytes must not
/// change when its implementation does: these values were computed by the original encoder.
@Suite("Input digest")
struct InputDigestTests {
    @Test("the digest of the fixture's inputs is the recorded one (an hourly and a monthly employee)")
    func digest_isStable() throws {
        let hourly = PayrollDataFixture.expectedInput(PayrollDataFixture.hourly)
        let monthly = PayrollDataFixture.expectedInput(PayrollDataFixture.monthly)
        #expect(hex(InputDigest.digest(hourly)) == "297a79d7648f049632fc19c6e54110aaac618822d58a4fdf4cae928034ddf4fe")
        #expect(hex(InputDigest.digest(monthly)) == "13321f1b34f6fa7b8a770f2ccdf7bfd14f82a878d5392ac49413aaa9693856bf")
    }

    @Test("every field that can change a payslip changes the digest")
    func digest_coversFields() throws {
        let base = PayrollDataFixture.expectedInput(PayrollDataFixture.hourly)
        var variants: [PayrollInput] = []
        var v = base; v.payDate = v.payDate.adding(days: 1); variants.append(v)
        v = base; v.employee.family += 1; variants.append(v)
        v = base; v.employee.leftOn = v.periodEnd; variants.append(v)
        v = base; v.contract.wageWon += 1; variants.append(v)
        v = base; v.contract.nonTaxable.mealsWon += 1; variants.append(v)
        v = base; v.contract.insuranceBase.healthWon = 1_000_000; variants.append(v)
        v = base; v.shifts[0].breakMinutes = (v.shifts[0].breakMinutes ?? 0) + 1; variants.append(v)
        v = base; v.shifts.removeLast(); variants.append(v)
        v = base; v.absences.append(Absence(date: v.periodStart, kind: .unexcused)); variants.append(v)
        v = base; v.workplace.fiveOrMore.toggle(); variants.append(v)
        let digests = Set(([base] + variants).map { hex(InputDigest.digest($0)) })
        #expect(digests.count == variants.count + 1)
        #expect(InputDigest.digest(base).count == 32)
    }

    @Test("the one-pass digest's buffer bound holds the exact encoding of every kind of input")
    func byteCountBound_holdsTheEncoding() throws {
        let base = PayrollDataFixture.expectedInput(PayrollDataFixture.hourly)
        var inputs = [base, PayrollDataFixture.expectedInput(PayrollDataFixture.monthly)]
        var v = base
        v.shifts[0].breaks = [BreakWindow(start: v.shifts[0].start, end: v.shifts[0].start.adding(minutes: 30)),
                              BreakWindow(start: v.shifts[0].start.adding(minutes: 60), end: v.shifts[0].start.adding(minutes: 90))]
        inputs.append(v)
        v = base; v.shifts = []; v.absences = []; v.workplace.holidays = nil; inputs.append(v)
        v = base; v.employee.id = String(repeating: "사", count: 40); v.contract.wageType = .monthly
        v.contract.tax = .business33; v.contract.weeklyAllowance = .statutory
        v.absences = (0..<20).map { Absence(date: base.periodStart.adding(days: $0), kind: .sickUnpaid) }
        v.employee.birthDate = base.periodStart; v.employee.hiredOn = base.periodStart; v.employee.leftOn = base.periodEnd
        v.contract.defaultBreakMinutes = 30
        v.contract.insuranceBase = InsuranceBases(nationalPensionWon: 1, healthWon: 2, employmentWon: 3)
        inputs.append(v)
        for input in inputs {
            var counter = InputDigest.Counter()
            InputDigest.encode(input, into: &counter)
            #expect(InputDigest.byteCountBound(input) >= counter.count)
        }
    }

    @Test("the digest's static names of the enums are their raw values, for every case")
    func names_areTheRawValues() {
        for v in WageType.allCases { #expect(InputDigest.Names.of(v).description == v.rawValue) }
        for v in AllowanceSwitch.allCases { #expect(InputDigest.Names.of(v).description == v.rawValue) }
        for v in TaxMode.allCases { #expect(InputDigest.Names.of(v).description == v.rawValue) }
        for v in HolidayKind.allCases { #expect(InputDigest.Names.of(v).description == v.rawValue) }
        for v in AbsenceKind.allCases { #expect(InputDigest.Names.of(v).description == v.rawValue) }
    }

    @Test("a reused scratch buffer gives every input the digest a fresh one gives")
    func scratch_reusedGivesTheSameDigests() {
        let hourly = PayrollDataFixture.expectedInput(PayrollDataFixture.hourly)
        var small = hourly
        small.shifts = []
        var scratch = InputDigest.Scratch()
        for input in [hourly, small, PayrollDataFixture.expectedInput(PayrollDataFixture.monthly), hourly] {
            #expect(InputDigest.digest(input, using: &scratch) == InputDigest.digest(input))
        }
    }

    @Test("a reused scratch's calendar part follows every change of calendar and period")
    func scratch_followsCalendarAndPeriod() {
        let hourly = PayrollDataFixture.expectedInput(PayrollDataFixture.hourly)
        var builtIn = hourly
        builtIn.workplace.holidays = nil
        var own = hourly
        own.workplace.holidays = HolidayCalendar([HolidayCalendar.Entry(date: hourly.periodStart.adding(days: 3), kind: .company, name: "창립기념일")])
        var sameEntriesOtherCalendar = hourly
        sameEntriesOtherCalendar.workplace.holidays = HolidayCalendar(hourly.workplace.holidays?.entries ?? [])
        var later = hourly
        later.periodStart = hourly.periodStart.adding(days: 31)
        later.periodEnd = hourly.periodEnd.adding(days: 31)
        later.shifts = []
        var scratch = InputDigest.Scratch()
        var digests: [[UInt8]] = []
        for input in [hourly, builtIn, builtIn, own, hourly, sameEntriesOtherCalendar, later, hourly, later] {
            let reused = InputDigest.digest(input, using: &scratch)
            #expect(reused == InputDigest.digest(input))
            digests.append(reused)
        }
        #expect(Set(digests).count >= 3)
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
