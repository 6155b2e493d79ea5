import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

@Suite("Holiday seed")
struct HolidaySeedTests {
    @Test("the seeded 2025–2026 calendar is HolidayCalendar.korea, row for row")
    func seed_equalsHolidayCalendarKorea() throws {
        let connection = try StoreFixture.migrated("holidays")
        let rows = try connection.query("SELECT holiday_date::text, kind, name FROM payrun.holidays ORDER BY holiday_date")
        let seeded = try rows.map { "\(try $0.string(at: 0)) \(try $0.string(at: 1)) \(try $0.string(at: 2))" }
        let swift = HolidayCalendar.korea.entries.map { "\($0.date) \($0.kind.rawValue) \($0.name)" }
        #expect(seeded == swift)
        #expect(seeded.count == 40)

        let years = try connection.query(
            "SELECT extract(year FROM holiday_date)::int, count(*) FROM payrun.holidays GROUP BY 1 ORDER BY 1")
        #expect(try years.map { try $0.int(at: 0) } == Array(HolidayCalendar.koreaCoveredYears))
        #expect(try years.map { try $0.int(at: 1) } == [20, 20])
    }

    @Test("spot checks: 노동절, election days, 대체공휴일, Sundays replaced by 대체공휴일")
    func seed_spotChecks() throws {
        let connection = try StoreFixture.migrated("holidays_spot")
        func kind(_ date: String) throws -> String? {
            try connection.queryOne("SELECT kind FROM payrun.holidays WHERE holiday_date = $1::date", [.text(date)])?.string(at: 0)
        }
        #expect(try kind("2026-05-01") == "labor_day")
        #expect(try kind("2025-05-01") == "labor_day")
        #expect(try kind("2025-06-03") == "election")
        #expect(try kind("2026-06-03") == "election")
        #expect(try kind("2025-01-27") == "temporary")
        #expect(try kind("2026-03-02") == "substitute")
        #expect(try kind("2026-07-17") == "public")
        // Sundays are left out (rules spec §1.4.4) where a 대체공휴일 follows: 삼일절 and 부처님오신날 2026.
        #expect(try kind("2026-03-01") == nil)
        #expect(try kind("2026-05-24") == nil)
        #expect(try kind("2026-11-03") == nil)
        // The one Sunday listed is 추석 연휴 2025-10-05, as in the spec's list and HolidayCalendar.korea.
        let sundays = try connection.query(
            "SELECT holiday_date::text FROM payrun.holidays WHERE extract(isodow FROM holiday_date) = 7")
        #expect(try sundays.map { try $0.string(at: 0) } == ["2025-10-05"])
        for date in ["2026-05-01", "2026-06-03", "2026-03-02", "2025-10-08"] {
            #expect(HolidayCalendar.korea.contains(LocalDate(iso: date)!))
        }
    }
}
