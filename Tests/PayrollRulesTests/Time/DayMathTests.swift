import Testing
@testable import PayrollRules

/// `DayMath.civil` and `DayMath.firstOfMonth` (the calculator's unsigned forms) against
/// `LocalDate`'s own conversion, for every day a payroll date may take and beyond.
@Suite("DayMath calendar conversions")
struct DayMathTests {
    @Test("civil takes every day of dayRange apart as LocalDate.civilFromDays does")
    func civilMatchesLocalDate() {
        var mismatches = 0
        var firstMismatch: Int64? = nil
        for day in (DayMath.dayRange.lowerBound - 1000)...(DayMath.dayRange.upperBound + 1000) {
            let fast = DayMath.civil(day)
            let reference = LocalDate.civilFromDays(Int(day))
            if fast != reference {
                mismatches += 1
                if firstMismatch == nil { firstMismatch = day }
            }
        }
        #expect(mismatches == 0, "first mismatch at day \(String(describing: firstMismatch))")
    }

    @Test("civil at the edges of its unsigned range and of months and leap days")
    func civilEdges() {
        for day: Int64 in [DayMath.civilDayFirst - 1, DayMath.civilDayFirst, DayMath.civilDayFirst + 1, -1, 0, 1,
                           Int64(LocalDate(year: 2024, month: 2, day: 29)!.daysSinceEpoch),
                           Int64(LocalDate(year: 2100, month: 3, day: 1)!.daysSinceEpoch),
                           Int64(LocalDate(year: 2026, month: 12, day: 31)!.daysSinceEpoch)] {
            #expect(DayMath.civil(day) == LocalDate.civilFromDays(Int(day)), "day \(day)")
        }
        #expect(DayMath.civil(Int64(LocalDate(year: 2024, month: 2, day: 29)!.daysSinceEpoch)) == (2024, 2, 29))
    }

    @Test("firstOfMonth equals LocalDate.firstOfMonth for every day of 1900 … 2200")
    func firstOfMonthMatchesLocalDate() {
        let first = LocalDate(year: 1900, month: 1, day: 1)!.daysSinceEpoch
        let last = LocalDate(year: 2200, month: 12, day: 31)!.daysSinceEpoch
        var mismatches = 0
        for day in first...last {
            let date = LocalDate(daysSinceEpoch: day)
            if DayMath.firstOfMonth(date) != date.firstOfMonth { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}

@Suite("DayMath day numbers")
struct DayMathDayNumberTests {
    @Test("dayNumber gives LocalDate.daysFromCivil's day for every date of the years −10 … 3000")
    func dayNumberMatchesLocalDate() {
        var mismatches = 0
        for year in -10...3000 {
            for month in 1...12 {
                for day in 1...LocalDate.daysInMonth(year: year, month: month) {
                    if DayMath.dayNumber(year: year, month: month, day: day)
                        != Int64(LocalDate.daysFromCivil(year: year, month: month, day: day)) { mismatches += 1 }
                }
            }
        }
        #expect(mismatches == 0)
    }
}
