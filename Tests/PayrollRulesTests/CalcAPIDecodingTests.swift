import Testing
@testable import PayrollRules

/// Decoding of well-formed `payrun calc` requests: every default of calc-api.md "Defaults and
/// validation", times, sorting and normalisation.
@Suite("calc API: decoding and defaults")
struct CalcAPIDecodingTests {
    @Test("the golden request decodes: 20 shifts, explicit breaks, period, pay date")
    func goldenRequestDecodes() throws {
        let input = try CalcRequestDecoder.decode(CalcAPIFixture.golden)
        #expect(input.periodStart == LocalDate(year: 2026, month: 11, day: 1))
        #expect(input.periodEnd == LocalDate(year: 2026, month: 11, day: 30))
        #expect(input.payDate == LocalDate(year: 2026, month: 12, day: 10))
        #expect(input.shifts.count == 20)
        let first = input.shifts[0]
        #expect(first.start == KoreaMinute(date: LocalDate(year: 2026, month: 11, day: 2)!, minuteOfDay: 17 * 60 + 30))
        #expect(first.end == KoreaMinute(date: LocalDate(year: 2026, month: 11, day: 3)!, minuteOfDay: 0))
        #expect(first.breaks == [BreakWindow(start: KoreaMinute(date: LocalDate(year: 2026, month: 11, day: 2)!, minuteOfDay: 1200),
                                             end: KoreaMinute(date: LocalDate(year: 2026, month: 11, day: 2)!, minuteOfDay: 1230))])
        #expect(first.breakMinutes == 30)
        #expect(input.contract.scheduleMinutes == [360, 360, 360, 360, 360, 0, 0])
        #expect(input.contract.weeklyScheduledMinutes == 1800)
        #expect(input.employee.hiredOn == LocalDate(year: 2026, month: 11, day: 2))
        #expect(input.employee.birthDate == LocalDate(year: 1999, month: 3, day: 2))
    }

    @Test("defaults: weekStart mon, weeklyHoliday sun, switches statutory, insurance on with null bases, tax simplified, non-taxable 0, family 1, children 0, ratio 100, employed throughout, built-in calendar, no break")
    func defaults() throws {
        let json = CalcAPIFixture.request(
            employee: #"{"id": "e-2"}"#,
            contract: #"{"wageType": "hourly", "wage": 10320, "schedule": {}}"#,
            shifts: [CalcAPIFixture.plainShift("2026-11-02T09:00", "2026-11-02T13:00")])
        let input = try CalcRequestDecoder.decode(json)
        let c = input.contract
        #expect(c.weekStart == .mon)
        #expect(c.weeklyHoliday == .sun)
        #expect(c.weeklyAllowance == .statutory && c.nightAllowance == .statutory)
        #expect(c.overtimeAllowance == .statutory && c.holidayAllowance == .statutory)
        #expect(c.insurance.nationalPension && c.insurance.health && c.insurance.employment)
        #expect(c.insuranceBase.nationalPensionWon == nil && c.insuranceBase.healthWon == nil && c.insuranceBase.employmentWon == nil)
        #expect(c.tax == .simplified)
        #expect(c.nonTaxable.mealsWon == 0 && c.nonTaxable.carAllowanceWon == 0 && c.nonTaxable.childcareWon == 0)
        #expect(c.defaultBreakMinutes == nil)
        #expect(c.scheduleMinutes == [0, 0, 0, 0, 0, 0, 0])
        let e = input.employee
        #expect(e.family == 1 && e.children8to20 == 0 && e.withholdingRatio == 100)
        #expect(e.hiredOn == nil && e.leftOn == nil && e.birthDate == nil)
        #expect(input.workplace.holidays == nil)
        #expect(input.absences.isEmpty)
        #expect(input.shifts[0].breakMinutes == nil && input.shifts[0].breaks.isEmpty)
    }

    @Test("null for an optional field means its default (leftOn, insuranceBase values, holidays)")
    func nullMeansDefault() throws {
        let json = CalcAPIFixture.request(
            workplace: #"{"fiveOrMore": false, "holidays": null}"#,
            employee: #"{"id": "e-1", "leftOn": null, "family": null}"#,
            contract: #"{"wageType": "hourly", "wage": 10320, "schedule": {"mon": 240}, "insuranceBase": {"nationalPension": null, "health": 2000000, "employment": null}}"#)
        let input = try CalcRequestDecoder.decode(json)
        #expect(input.employee.leftOn == nil && input.employee.family == 1)
        #expect(input.workplace.holidays == nil && !input.workplace.fiveOrMore)
        #expect(input.contract.insuranceBase.healthWon == 2_000_000)
        #expect(input.contract.insuranceBase.nationalPensionWon == nil)
    }

    @Test("every optional field given explicitly is read")
    func everyField() throws {
        let json = CalcAPIFixture.request(
            workplace: #"{"fiveOrMore": false, "holidays": ["2026-11-11", "2026-11-12", "2026-11-11"]}"#,
            employee: #"{"id": "직원-7", "birthDate": "1960-01-31", "hiredOn": "2026-10-01", "leftOn": "2026-11-20", "family": 4, "children8to20": 2, "withholdingRatio": 120}"#,
            contract: #"{"wageType": "daily", "wage": 90000, "schedule": {"mon": 480, "sat": 240}, "weekStart": "sun", "weeklyHoliday": "sat", "defaultBreakMinutes": 60, "weeklyAllowance": "always", "nightAllowance": "never", "overtimeAllowance": "always", "holidayAllowance": "never", "insurance": {"nationalPension": false, "health": true, "employment": false}, "insuranceBase": {"nationalPension": 1000000, "health": 0, "employment": 3000000}, "tax": "daily", "nonTaxable": {"meals": 250000, "carAllowance": 100000, "childcare": 1}}"#,
            shifts: [CalcAPIFixture.plainShift("2026-11-02T09:00", "2026-11-02T18:00")],
            extra: #", "absences": [{"date": "2026-11-09", "kind": "sick_unpaid"}, {"date": "2026-11-05", "kind": "unexcused"}, {"date": "2026-11-06", "kind": "leave"}]"#)
        let input = try CalcRequestDecoder.decode(json)
        #expect(input.employee.id == "직원-7")
        #expect(input.employee.family == 4 && input.employee.children8to20 == 2 && input.employee.withholdingRatio == 120)
        #expect(input.employee.leftOn == LocalDate(year: 2026, month: 11, day: 20))
        let c = input.contract
        #expect(c.wageType == .daily && c.wageWon == 90_000)
        #expect(c.scheduleMinutes == [480, 0, 0, 0, 0, 240, 0])
        #expect(c.weekStart == .sun && c.weeklyHoliday == .sat && c.defaultBreakMinutes == 60)
        #expect(c.weeklyAllowance == .always && c.nightAllowance == .never)
        #expect(c.overtimeAllowance == .always && c.holidayAllowance == .never)
        #expect(!c.insurance.nationalPension && c.insurance.health && !c.insurance.employment)
        #expect(c.insuranceBase.nationalPensionWon == 1_000_000 && c.insuranceBase.healthWon == 0)
        #expect(c.insuranceBase.employmentWon == 3_000_000)
        #expect(c.tax == .daily)
        #expect(c.nonTaxable.mealsWon == 250_000 && c.nonTaxable.carAllowanceWon == 100_000 && c.nonTaxable.childcareWon == 1)
        // Duplicate holiday dates are merged; 2026-11-11 is a holiday, 11-13 is not.
        #expect(input.workplace.holidays?.entries.count == 2)
        #expect(input.workplace.holidays?.contains(LocalDate(year: 2026, month: 11, day: 11)!) == true)
        #expect(input.workplace.holidays?.contains(LocalDate(year: 2026, month: 11, day: 13)!) == false)
        // Absences come back sorted by date.
        #expect(input.absences.map(\.kind) == [.unexcused, .leave, .sickUnpaid])
        // The contract's default break is copied into a shift that gives none.
        #expect(input.shifts[0].breakMinutes == 60)
    }

    @Test("an empty holidays list means no holidays at all, not the built-in calendar")
    func emptyHolidayList() throws {
        let input = try CalcRequestDecoder.decode(CalcAPIFixture.request(workplace: #"{"fiveOrMore": true, "holidays": []}"#))
        #expect(input.workplace.holidays?.entries.isEmpty == true)
        #expect(input.workplace.holidays?.contains(LocalDate(year: 2026, month: 12, day: 25)!) == false)
    }

    @Test("shifts are sorted by start; touching shifts (end = next start) are allowed")
    func shiftsSorted() throws {
        let json = CalcAPIFixture.request(shifts: [
            CalcAPIFixture.plainShift("2026-11-03T13:00", "2026-11-03T17:00"),
            CalcAPIFixture.plainShift("2026-11-02T09:00", "2026-11-02T13:00"),
            CalcAPIFixture.plainShift("2026-11-03T09:00", "2026-11-03T13:00"),
        ])
        let input = try CalcRequestDecoder.decode(json)
        #expect(input.shifts.map(\.start.description) == [
            "2026-11-02T09:00:00+09:00", "2026-11-03T09:00:00+09:00", "2026-11-03T13:00:00+09:00",
        ])
    }

    @Test("explicit breaks are sorted and their total becomes breakMinutes; an agreeing breakMinutes is accepted")
    func breaksSorted() throws {
        let shift = #"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T18:00:00+09:00", "breakMinutes": 45, "breaks": [{"start": "2026-11-02T15:00:00+09:00", "end": "2026-11-02T15:15:00+09:00"}, {"start": "2026-11-02T12:00:00+09:00", "end": "2026-11-02T12:30:00+09:00"}]}"#
        let input = try CalcRequestDecoder.decode(CalcAPIFixture.request(shifts: [shift]))
        #expect(input.shifts[0].breaks.map { $0.start.minuteOfDay } == [720, 900])
        #expect(input.shifts[0].breakMinutes == 45)
    }

    @Test("times: +09:00, Z and other offsets give the same Korea minute; seconds may be omitted")
    func timeOffsets() throws {
        let korea = KoreaMinute(date: LocalDate(year: 2026, month: 11, day: 2)!, minuteOfDay: 17 * 60 + 30)
        for text in ["2026-11-02T17:30:00+09:00", "2026-11-02T08:30:00Z", "2026-11-02T08:30:00z", "2026-11-02T03:30:00-05:00",
                     "2026-11-02T17:30+09:00", "2026-11-02T14:00:00+05:30", "2026-11-01T23:30:00-09:00"] {
            #expect(try ISOTime.koreaMinute(text).get() == korea, "\(text)")
        }
    }

    @Test("times: no offset, non-zero or fractional seconds, hour 24, bad offsets and garbage are rejected")
    func badTimes() {
        let cases: [(String, ISOTime.Failure)] = [
            ("2026-11-02T17:30:00", .noOffset), ("2026-11-02T17:30", .noOffset),
            ("2026-11-02T17:30:30+09:00", .nonZeroSeconds), ("2026-11-02T17:30:00.000+09:00", .nonZeroSeconds),
            ("2026-11-02T24:00:00+09:00", .malformed), ("2026-11-02T17:60:00+09:00", .malformed),
            ("2026-11-02 17:30:00+09:00", .malformed), ("2026-11-02T17:30:00+0900", .malformed),
            ("2026-11-02T17:30:00+19:00", .malformed), ("2026-02-30T17:30:00+09:00", .malformed),
            ("2026-11-02T17:30:00+09:00 ", .malformed), ("", .malformed), ("2026-11-02T17:30:00Z+09:00", .malformed),
            ("2026-11-02T17:30:61+09:00", .malformed),
        ]
        for (text, failure) in cases {
            switch ISOTime.koreaMinute(text) {
            case .success(let m): Issue.record("\(text) parsed as \(m)")
            case .failure(let f): #expect(f == failure, "\(text)")
            }
        }
    }

    @Test("a time without offset in a request is invalid_value naming the field")
    func timeWithoutOffsetInRequest() {
        expectDecodingError(CalcAPIFixture.request(shifts: [#"{"start": "2026-11-02T09:00:00", "end": "2026-11-02T13:00:00+09:00"}"#]),
                            .invalidValue, field: "shifts[0].start", messageContains: "offset")
        expectDecodingError(CalcAPIFixture.request(shifts: [#"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T13:00:30+09:00"}"#]),
                            .invalidValue, field: "shifts[0].end", messageContains: "whole minute")
    }
}
