import PayrollEngine
import PayrollRules
import Testing

/// `BatchCalculator` computes each slice with its own copy of the workplace calendars its inputs
/// share; these tests check that the copy is always of the right calendar.
@Suite("BatchCalculator with shared workplace calendars")
struct BatchCalculatorCalendarTests {
    let workforce = SyntheticWorkforce(seed: 29, year: 2026, month: 10)

    static func date(_ day: Int) -> LocalDate { LocalDate(year: 2026, month: 10, day: day) ?? LocalDate(daysSinceEpoch: 0) }

    /// Three calendars that pay differently in October 2026, one of them twice as separate values.
    static let companyDays = HolidayCalendar([
        .init(date: date(6), kind: .company, name: "창립기념일"), .init(date: date(13), kind: .company, name: "휴무일"),
        .init(date: date(21), kind: .company, name: "휴무일"), .init(date: date(28), kind: .company, name: "휴무일"),
    ])
    static let sameCompanyDays = HolidayCalendar(companyDays.entries)
    static let fewDays = HolidayCalendar([.init(date: date(9), kind: .publicHoliday, name: "한글날")])

    /// Inputs in runs of 37 (across slice boundaries) cycling through the calendars and nil.
    func inputs(count: Int) -> [PayrollInput] {
        let calendars: [HolidayCalendar?] = [Self.companyDays, nil, Self.fewDays, Self.sameCompanyDays, Self.companyDays]
        return (0..<count).map { i in
            var input = workforce.employee(i)
            input.workplace.fiveOrMore = true
            input.workplace.holidays = calendars[(i / 37) % calendars.count]
            return input
        }
    }

    @Test("parallel results equal serial ones when runs of inputs share calendars")
    func parallelEqualsSerialWithSharedCalendars() {
        let inputs = inputs(count: 900)
        let serial = BatchCalculator.calculate(inputs, parallelism: 1)
        #expect(BatchCalculator.calculate(inputs, parallelism: 2) == serial)
        #expect(BatchCalculator.calculate(inputs, parallelism: 3) == serial)
        // Each input alone, with a calendar value of its own.
        let alone = inputs.map { input in
            var own = input
            own.workplace.holidays = input.workplace.holidays.map { HolidayCalendar($0.entries) }
            return BatchCalculator.calculate([own], parallelism: 1)[0]
        }
        #expect(alone == serial)
    }

    @Test("the calendars of these inputs change their payslips (so a swapped calendar would show)")
    func calendarsMatter() {
        let inputs = inputs(count: 900)
        var withoutCalendars = inputs
        for i in withoutCalendars.indices { withoutCalendars[i].workplace.holidays = nil }
        let with = BatchCalculator.calculate(inputs, parallelism: 2)
        let without = BatchCalculator.calculate(withoutCalendars, parallelism: 2)
        let differing = zip(with, without).filter { $0.0 != $0.1 }.count
        #expect(differing > 100)
    }
}
