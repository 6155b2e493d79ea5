import Foundation
import Testing
@testable import PayrollRules

/// Every bad input of calc-api.md "Defaults and validation" gives its error code and field.
@Suite("calc API: validation of bad requests")
struct CalcAPIValidationTests {
    typealias F = CalcAPIFixture

    // MARK: Shifts

    @Test("shift end before or equal to its start → invalid_value shifts[i].end")
    func shiftEndNotAfterStart() {
        expectDecodingError(F.request(shifts: [F.plainShift("2026-11-02T09:00", "2026-11-02T08:00")]),
                            .invalidValue, field: "shifts[0].end", messageContains: "not after its start")
        expectDecodingError(F.request(shifts: [F.plainShift("2026-11-02T09:00", "2026-11-03T00:00"),
                                               F.plainShift("2026-11-04T09:00", "2026-11-04T09:00")]),
                            .invalidValue, field: "shifts[1].end")
    }

    @Test("shift longer than 24 h → invalid_value shifts[i].end; exactly 24 h is allowed")
    func shiftLongerThan24h() throws {
        expectDecodingError(F.request(shifts: [F.plainShift("2026-11-02T09:00", "2026-11-03T09:01")]),
                            .invalidValue, field: "shifts[0].end", messageContains: "24 h")
        _ = try CalcRequestDecoder.decode(F.request(shifts: [F.plainShift("2026-11-02T09:00", "2026-11-03T09:00")]))
    }

    @Test("overlapping shifts, found after sorting by start → invalid_value naming the later shift by its input index")
    func overlappingShifts() {
        expectDecodingError(F.request(shifts: [
            F.plainShift("2026-11-03T17:30", "2026-11-04T00:00"),
            F.plainShift("2026-11-02T17:30", "2026-11-03T00:00"),
            F.plainShift("2026-11-03T23:00", "2026-11-04T01:00"),
        ]), .invalidValue, field: "shifts[2].start", messageContains: "overlaps shifts[0]")
        // Same start twice.
        expectDecodingError(F.request(shifts: [F.plainShift("2026-11-02T09:00", "2026-11-02T10:00"),
                                               F.plainShift("2026-11-02T09:00", "2026-11-02T11:00")]),
                            .invalidValue, field: "shifts[1].start")
    }

    @Test("shift starting more than 7 days outside the period → invalid_value shifts[i].start")
    func shiftOutsidePeriodWindow() throws {
        expectDecodingError(F.request(shifts: [F.plainShift("2026-10-24T09:00", "2026-10-24T10:00")]),
                            .invalidValue, field: "shifts[0].start")
        expectDecodingError(F.request(shifts: [F.plainShift("2026-12-08T09:00", "2026-12-08T10:00")]),
                            .invalidValue, field: "shifts[0].start")
        _ = try CalcRequestDecoder.decode(F.request(shifts: [F.plainShift("2026-10-25T09:00", "2026-10-25T10:00"),
                                                             F.plainShift("2026-12-07T09:00", "2026-12-07T10:00")]))
    }

    // MARK: Breaks

    @Test("breakMinutes not shorter than its shift → invalid_value shifts[i].breakMinutes")
    func breakLongerThanShift() {
        expectDecodingError(F.request(shifts: [F.plainShift("2026-11-02T09:00", "2026-11-02T10:00", #", "breakMinutes": 61"#)]),
                            .invalidValue, field: "shifts[0].breakMinutes", messageContains: "longer than")
        expectDecodingError(F.request(shifts: [F.plainShift("2026-11-02T09:00", "2026-11-02T10:00", #", "breakMinutes": 60"#)]),
                            .invalidValue, field: "shifts[0].breakMinutes")
    }

    @Test("contract.defaultBreakMinutes not shorter than a shift without its own break → invalid_value shifts[i]")
    func defaultBreakLongerThanShift() {
        let json = F.request(contract: #"{"wageType": "hourly", "wage": 10320, "schedule": {}, "defaultBreakMinutes": 30}"#,
                             shifts: [F.plainShift("2026-11-02T09:00", "2026-11-02T13:00"),
                                      F.plainShift("2026-11-03T09:00", "2026-11-03T09:30")])
        expectDecodingError(json, .invalidValue, field: "shifts[1]", messageContains: "defaultBreakMinutes")
    }

    @Test("explicit break window outside its shift → invalid_value shifts[i].breaks[k]")
    func breakOutsideShift() {
        let shift = #"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T13:00:00+09:00", "breaks": [{"start": "2026-11-02T12:45:00+09:00", "end": "2026-11-02T13:15:00+09:00"}]}"#
        expectDecodingError(F.request(shifts: [shift]), .invalidValue, field: "shifts[0].breaks[0]", messageContains: "outside")
        let before = #"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T13:00:00+09:00", "breaks": [{"start": "2026-11-02T08:30:00+09:00", "end": "2026-11-02T09:00:00+09:00"}]}"#
        expectDecodingError(F.request(shifts: [before]), .invalidValue, field: "shifts[0].breaks[0]")
    }

    @Test("overlapping explicit breaks → invalid_value shifts[i].breaks[k]")
    func overlappingBreaks() {
        let shift = #"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T18:00:00+09:00", "breaks": [{"start": "2026-11-02T12:00:00+09:00", "end": "2026-11-02T13:00:00+09:00"}, {"start": "2026-11-02T12:30:00+09:00", "end": "2026-11-02T12:45:00+09:00"}]}"#
        expectDecodingError(F.request(shifts: [shift]), .invalidValue, field: "shifts[0].breaks[1]", messageContains: "overlaps breaks[0]")
    }

    @Test("break ending before or at its start → invalid_value shifts[i].breaks[k].end")
    func breakEndNotAfterStart() {
        let shift = #"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T18:00:00+09:00", "breaks": [{"start": "2026-11-02T12:00:00+09:00", "end": "2026-11-02T12:00:00+09:00"}]}"#
        expectDecodingError(F.request(shifts: [shift]), .invalidValue, field: "shifts[0].breaks[0].end")
    }

    @Test("breaks covering the whole shift → invalid_value shifts[i].breaks")
    func breaksCoverShift() {
        let shift = #"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T10:00:00+09:00", "breaks": [{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T10:00:00+09:00"}]}"#
        expectDecodingError(F.request(shifts: [shift]), .invalidValue, field: "shifts[0].breaks")
    }

    @Test("breakMinutes that disagrees with the explicit breaks → invalid_value shifts[i].breakMinutes")
    func breakMinutesDisagree() {
        let shift = #"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T18:00:00+09:00", "breakMinutes": 60, "breaks": [{"start": "2026-11-02T12:00:00+09:00", "end": "2026-11-02T12:30:00+09:00"}]}"#
        expectDecodingError(F.request(shifts: [shift]), .invalidValue, field: "shifts[0].breakMinutes", messageContains: "disagrees")
    }

    @Test("negative breakMinutes → invalid_value")
    func negativeBreak() {
        expectDecodingError(F.request(shifts: [F.plainShift("2026-11-02T09:00", "2026-11-02T13:00", #", "breakMinutes": -5"#)]),
                            .invalidValue, field: "shifts[0].breakMinutes")
    }

    // MARK: Wage and contract

    @Test("zero or negative wage → invalid_value contract.wage")
    func nonPositiveWage() {
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 0"#), .invalidValue, field: "contract.wage")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": -10320"#), .invalidValue, field: "contract.wage")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 1000000001"#), .invalidValue, field: "contract.wage")
    }

    @Test("unknown wage type → invalid_value contract.wageType")
    func unknownWageType() {
        expectDecodingError(contract(replacing: #""hourly""#, with: #""weekly""#), .invalidValue, field: "contract.wageType",
                            messageContains: "\"hourly\"")
    }

    @Test("unknown weekday key in the schedule → unknown_field contract.schedule.<key>")
    func unknownWeekdayKey() {
        expectDecodingError(contract(replacing: #""fri": 360"#, with: #""fri": 360, "friday": 60"#), .unknownField,
                            field: "contract.schedule.friday")
    }

    @Test("unknown weekday value for weekStart / weeklyHoliday → invalid_value")
    func unknownWeekdayValue() {
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "weekStart": "monday""#),
                            .invalidValue, field: "contract.weekStart")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "weeklyHoliday": "Sun""#),
                            .invalidValue, field: "contract.weeklyHoliday")
    }

    @Test("schedule minutes outside 0…1440 → invalid_value contract.schedule.<day>")
    func scheduleOutOfRange() {
        expectDecodingError(contract(replacing: #""mon": 360"#, with: #""mon": 1441"#), .invalidValue, field: "contract.schedule.mon")
        expectDecodingError(contract(replacing: #""tue": 360"#, with: #""tue": -1"#), .invalidValue, field: "contract.schedule.tue")
    }

    @Test("daily or monthly wage with no scheduled minutes → invalid_value contract.schedule")
    func emptyScheduleForMonthly() {
        expectDecodingError(F.request(contract: #"{"wageType": "monthly", "wage": 2156880, "schedule": {}}"#),
                            .invalidValue, field: "contract.schedule")
    }

    @Test("unknown tax mode → invalid_value contract.tax")
    func unknownTaxMode() {
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "tax": "flat""#),
                            .invalidValue, field: "contract.tax")
    }

    @Test("daily withholding with a monthly wage → invalid_value contract.tax")
    func dailyTaxWithMonthlyWage() {
        expectDecodingError(F.request(contract: #"{"wageType": "monthly", "wage": 2156880, "schedule": {"mon": 480, "tue": 480, "wed": 480, "thu": 480, "fri": 480}, "tax": "daily"}"#),
                            .invalidValue, field: "contract.tax", messageContains: "monthly")
    }

    @Test("unknown allowance switch → invalid_value contract.<switch>")
    func unknownAllowanceSwitch() {
        for key in ["weeklyAllowance", "nightAllowance", "overtimeAllowance", "holidayAllowance"] {
            expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "\#(key)": "sometimes""#),
                                .invalidValue, field: "contract.\(key)")
        }
    }

    @Test("negative non-taxable amount or insurance base → invalid_value")
    func negativeAmounts() {
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "nonTaxable": {"meals": -1}"#),
                            .invalidValue, field: "contract.nonTaxable.meals")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "insuranceBase": {"health": -1}"#),
                            .invalidValue, field: "contract.insuranceBase.health")
    }

    // MARK: Absences

    @Test("unknown absence kind → invalid_value absences[i].kind")
    func unknownAbsenceKind() {
        expectDecodingError(F.request(extra: #", "absences": [{"date": "2026-11-05", "kind": "holiday"}]"#),
                            .invalidValue, field: "absences[0].kind")
    }

    @Test("two absences on one date, or an absence far outside the period → invalid_value absences[i].date")
    func badAbsenceDates() {
        expectDecodingError(F.request(extra: #", "absences": [{"date": "2026-11-05", "kind": "leave"}, {"date": "2026-11-05", "kind": "unexcused"}]"#),
                            .invalidValue, field: "absences[1].date")
        expectDecodingError(F.request(extra: #", "absences": [{"date": "2027-01-05", "kind": "leave"}]"#),
                            .invalidValue, field: "absences[0].date")
    }

    // MARK: Dates and coverage

    @Test("premium month outside 2025-01 … 2026-12 → unsupported periodEnd")
    func premiumMonthOutsideTables() throws {
        expectDecodingError(F.request(period: #""periodStart": "2027-01-01", "periodEnd": "2027-01-31", "payDate": "2027-02-10""#, shifts: []),
                            .unsupported, field: "periodEnd")
        expectDecodingError(F.request(period: #""periodStart": "2024-12-01", "periodEnd": "2024-12-31", "payDate": "2025-01-10""#, shifts: []),
                            .unsupported, field: "periodEnd")
        // The premium month is the month of periodEnd: a period ending in 2025-01 is covered.
        _ = try CalcRequestDecoder.decode(F.request(period: #""periodStart": "2024-12-16", "periodEnd": "2025-01-15", "payDate": "2025-01-25""#, shifts: []))
    }

    @Test("payment date before 2024-03-01 → unsupported payDate")
    func payDateTooEarly() {
        expectDecodingError(golden(replacing: #""payDate": "2026-12-10""#, with: #""payDate": "2024-02-29""#), .unsupported, field: "payDate")
    }

    @Test("period longer than 31 days, or ending before it starts → invalid_value periodEnd")
    func badPeriod() {
        expectDecodingError(golden(replacing: #""periodStart": "2026-11-01""#, with: #""periodStart": "2026-10-30""#),
                            .invalidValue, field: "periodEnd", messageContains: "32 days")
        expectDecodingError(golden(replacing: #""periodEnd": "2026-11-30""#, with: #""periodEnd": "2026-10-31""#),
                            .invalidValue, field: "periodEnd", messageContains: "before")
    }

    @Test("malformed dates → invalid_value naming the field")
    func malformedDates() {
        expectDecodingError(golden(replacing: #""payDate": "2026-12-10""#, with: #""payDate": "2026-13-10""#), .invalidValue, field: "payDate")
        expectDecodingError(golden(replacing: #""periodEnd": "2026-11-30""#, with: #""periodEnd": "2026-11-31""#), .invalidValue, field: "periodEnd")
        expectDecodingError(golden(replacing: #""hiredOn": "2026-11-02""#, with: #""hiredOn": "2026/11/02""#), .invalidValue, field: "employee.hiredOn")
        expectDecodingError(F.request(workplace: #"{"fiveOrMore": true, "holidays": ["2026-11-11", "11-12"]}"#),
                            .invalidValue, field: "workplace.holidays[1]")
    }

    @Test("leftOn before hiredOn → invalid_value employee.leftOn")
    func leftBeforeHired() {
        expectDecodingError(golden(replacing: #""hiredOn": "2026-11-02""#, with: #""hiredOn": "2026-11-02", "leftOn": "2026-11-01""#),
                            .invalidValue, field: "employee.leftOn")
    }

    // MARK: Employee tax fields

    @Test("family below 1 → invalid_value employee.family")
    func familyBelowOne() {
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "family": 0"#), .invalidValue, field: "employee.family")
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "family": 100"#), .invalidValue, field: "employee.family")
    }

    @Test("children8to20 below 0 or not below family (which counts the employee) → invalid_value employee.children8to20")
    func badChildren() throws {
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "children8to20": -1"#),
                            .invalidValue, field: "employee.children8to20")
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "family": 2, "children8to20": 3"#),
                            .invalidValue, field: "employee.children8to20", messageContains: "family − 1")
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "family": 2, "children8to20": 2"#),
                            .invalidValue, field: "employee.children8to20")
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "children8to20": 1"#),
                            .invalidValue, field: "employee.children8to20")
        let ok = try CalcRequestDecoder.decode(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "family": 2, "children8to20": 1"#))
        #expect(ok.employee.children8to20 == 1)
    }

    @Test("withholdingRatio other than 80, 100, 120 → invalid_value employee.withholdingRatio")
    func badRatio() {
        for ratio in [0, 90, 110, 121] {
            expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "withholdingRatio": \#(ratio)"#),
                                .invalidValue, field: "employee.withholdingRatio")
        }
    }

    @Test("empty or over-long employee id → invalid_value employee.id")
    func badEmployeeId() {
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": """#), .invalidValue, field: "employee.id")
        let long = String(repeating: "가", count: 86)  // 258 bytes
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "\#(long)""#), .invalidValue, field: "employee.id")
    }

    // MARK: JSON types

    @Test("a string where a number belongs → invalid_value")
    func stringForNumber() {
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": "10320""#), .invalidValue, field: "contract.wage",
                            messageContains: "got a string")
        expectDecodingError(contract(replacing: #""mon": 360"#, with: #""mon": "360""#), .invalidValue, field: "contract.schedule.mon")
    }

    @Test("fractional or exponent numbers for integer fields → invalid_value (also 10320.0 and 1e4)")
    func fractionalNumbers() {
        for literal in ["10320.5", "10320.0", "1.032e4", "1e4"] {
            expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": \#(literal)"#), .invalidValue, field: "contract.wage",
                                messageContains: literal)
        }
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "family": 1.5"#), .invalidValue, field: "employee.family")
    }

    @Test("integers beyond Int64 → invalid_value, not a crash")
    func hugeIntegers() {
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 99999999999999999999999"#), .invalidValue, field: "contract.wage")
    }

    @Test("booleans where numbers belong, numbers where booleans belong → invalid_value")
    func booleansAndNumbers() {
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": true"#), .invalidValue, field: "contract.wage",
                            messageContains: "boolean")
        expectDecodingError(F.request(workplace: #"{"fiveOrMore": 1}"#), .invalidValue, field: "workplace.fiveOrMore")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "insurance": {"health": 0}"#),
                            .invalidValue, field: "contract.insurance.health")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "insurance": {"health": "true"}"#),
                            .invalidValue, field: "contract.insurance.health")
    }

    @Test("objects and arrays of the wrong type → invalid_value")
    func wrongContainers() {
        expectDecodingError(F.request(workplace: "[]"), .invalidValue, field: "workplace")
        expectDecodingError(contract(replacing: #""schedule": {"mon": 360, "tue": 360, "wed": 360, "thu": 360, "fri": 360}"#,
                                     with: #""schedule": [360, 360]"#), .invalidValue, field: "contract.schedule")
        expectDecodingError(golden(replacing: #""fiveOrMore": true}"#, with: #""fiveOrMore": true, "holidays": "2026-11-11"}"#),
                            .invalidValue, field: "workplace.holidays")
        expectDecodingError(F.request(shifts: ["42"]), .invalidValue, field: "shifts[0]")
    }

    // MARK: Missing and unknown fields

    @Test("missing required fields → missing_field with the path")
    func missingFields() {
        expectDecodingError(golden(replacing: #""periodStart": "2026-11-01", "#, with: ""), .missingField, field: "periodStart")
        expectDecodingError(golden(replacing: #""id": "e-1", "#, with: ""), .missingField, field: "employee.id")
        expectDecodingError(contract(replacing: #""wage": 10320, "#, with: ""), .missingField, field: "contract.wage")
        expectDecodingError(contract(replacing: #""wageType": "hourly", "#, with: ""), .missingField, field: "contract.wageType")
        expectDecodingError(F.request(workplace: "{}"), .missingField, field: "workplace.fiveOrMore")
        expectDecodingError(F.request(shifts: [#"{"end": "2026-11-02T13:00:00+09:00"}"#]), .missingField, field: "shifts[0].start")
        expectDecodingError(golden(replacing: #", "shifts": ["#, with: #", "shifts2": ["#), .unknownField, field: "shifts2")
        expectDecodingError(#"{"periodStart": "2026-11-01", "periodEnd": "2026-11-30", "payDate": "2026-12-10", "workplace": {"fiveOrMore": true}, "employee": {"id": "e"}, "contract": \#(F.contract)}"#,
                            .missingField, field: "shifts")
        expectDecodingError(golden(replacing: #""wage": 10320"#, with: #""wage": null"#), .missingField, field: "contract.wage")
    }

    @Test("unknown fields at every level → unknown_field with the path")
    func unknownFields() {
        expectDecodingError(golden(replacing: #""payDate": "2026-12-10""#, with: #""payDate": "2026-12-10", "paydate": "2026-12-10""#),
                            .unknownField, field: "paydate")
        expectDecodingError(F.request(workplace: #"{"fiveOrMore": true, "size": 5}"#), .unknownField, field: "workplace.size")
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "name": "김"#), .invalidJSON, field: nil)
        expectDecodingError(golden(replacing: #""id": "e-1""#, with: #""id": "e-1", "name": "김""#), .unknownField, field: "employee.name")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "wages": 1"#), .unknownField, field: "contract.wages")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "insurance": {"pension": true}"#),
                            .unknownField, field: "contract.insurance.pension")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "insuranceBase": {"health": 1, "care": 2}"#),
                            .unknownField, field: "contract.insuranceBase.care")
        expectDecodingError(contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "nonTaxable": {"lunch": 1}"#),
                            .unknownField, field: "contract.nonTaxable.lunch")
        expectDecodingError(F.request(shifts: [F.shift(day: 2), F.plainShift("2026-11-03T09:00", "2026-11-03T10:00", #", "note": "x""#)]),
                            .unknownField, field: "shifts[1].note")
        let shift = #"{"start": "2026-11-02T09:00:00+09:00", "end": "2026-11-02T18:00:00+09:00", "breaks": [{"start": "2026-11-02T12:00:00+09:00", "end": "2026-11-02T13:00:00+09:00", "paid": false}]}"#
        expectDecodingError(F.request(shifts: [shift]), .unknownField, field: "shifts[0].breaks[0].paid")
        expectDecodingError(F.request(extra: #", "absences": [{"date": "2026-11-05", "kind": "leave", "hours": 8}]"#),
                            .unknownField, field: "absences[0].hours")
    }

    // MARK: Malformed JSON

    @Test("malformed JSON → invalid_json without a field")
    func malformedJSON() {
        let bad = [
            "", "   ", "{", #"{"periodStart": "2026-11-01",}"#, #"{'periodStart': 1}"#, #"{"a": NaN}"#, #"{"a": 01}"#,
            #"{"a": 1} {"b": 2}"#, "{\"a\": \"tab\tinside\"}", #"{"a": "\x"}"#, #"{"a": "\ud800"}"#, #"{"a": tru}"#,
            #"{"a": -}"#, #"{"a": 1.}"#, #"{"a": .5}"#, #"{"a": 1e}"#, #"{"a" 1}"#, #"{"a": [1, 2}"#, "null", "[]", "42",
            #""just a string""#,
        ]
        for text in bad {
            expectDecodingError(text, .invalidJSON, field: nil)
        }
    }

    @Test("duplicate keys are invalid_json (an ambiguous payroll input)")
    func duplicateKeys() {
        expectDecodingError(golden(replacing: #""wage": 10320"#, with: #""wage": 10320, "wage": 20000"#), .invalidJSON, field: nil,
                            messageContains: "duplicate key \"wage\"")
    }

    @Test("invalid UTF-8 in a string is invalid_json")
    func invalidUTF8() throws {
        var bytes = Array(#"{"periodStart": ""#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(#""}"#.utf8)
        #expect(throws: PayrollError.self) { try JSONParser.parse(bytes) }
        do { _ = try JSONParser.parse(bytes) } catch { #expect(error.code == .invalidJSON) }
    }

    @Test("nesting deeper than 32 levels is invalid_json, not a stack overflow")
    func deepNesting() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        expectDecodingError(deep, .invalidJSON, field: nil, messageContains: "nesting")
    }

    // MARK: Limits

    @Test("more than 1,000 shifts → invalid_value shifts; exactly 1,000 is accepted")
    func shiftLimit() throws {
        // 1,000 back-to-back 20-minute shifts fit inside the allowed window.
        func shifts(_ n: Int) -> [String] {
            (0..<n).map { i in
                let start = KoreaMinute(date: LocalDate(year: 2026, month: 11, day: 1)!, minuteOfDay: 0).adding(minutes: Int64(i) * 20)
                return #"{"start": "\#(start)", "end": "\#(start.adding(minutes: 20))"}"#
            }
        }
        let input = try CalcRequestDecoder.decode(F.request(shifts: shifts(1_000)))
        #expect(input.shifts.count == 1_000)
        expectDecodingError(F.request(shifts: shifts(1_001)), .invalidValue, field: "shifts", messageContains: "at most 1000")
    }

    @Test("more than 100 breaks in a shift → invalid_value shifts[i].breaks")
    func breakLimit() {
        let breaks = (0..<101).map { i in
            let start = KoreaMinute(date: LocalDate(year: 2026, month: 11, day: 2)!, minuteOfDay: i * 2)
            return #"{"start": "\#(start)", "end": "\#(start.adding(minutes: 1))"}"#
        }
        let shift = #"{"start": "2026-11-02T00:00:00+09:00", "end": "2026-11-02T23:00:00+09:00", "breaks": [\#(breaks.joined(separator: ","))]}"#
        expectDecodingError(F.request(shifts: [shift]), .invalidValue, field: "shifts[0].breaks", messageContains: "at most 100")
    }

    @Test("more than 400 holidays → invalid_value workplace.holidays")
    func holidayLimit() {
        let dates = (0..<401).map { #""\#(LocalDate(year: 2025, month: 1, day: 1)!.adding(days: $0))""# }
        expectDecodingError(F.request(workplace: #"{"fiveOrMore": true, "holidays": [\#(dates.joined(separator: ","))]}"#),
                            .invalidValue, field: "workplace.holidays", messageContains: "at most 400")
    }

    @Test("more than 100 absences → invalid_value absences")
    func absenceLimit() {
        let entries = (0..<101).map { _ in #"{"date": "2026-11-05", "kind": "leave"}"# }
        expectDecodingError(F.request(extra: #", "absences": [\#(entries.joined(separator: ","))]"#), .invalidValue, field: "absences")
    }

    @Test("a request line over 1 MiB → unsupported")
    func lineLimit() {
        let padding = String(repeating: " ", count: CalcLimits.lineBytesMax)
        expectDecodingError(F.golden + padding, .unsupported, field: nil, messageContains: "longer than")
    }
}
