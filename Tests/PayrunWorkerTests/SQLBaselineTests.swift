import Foundation
import PayrollStore
import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Testing

/// benchmarks/sql-baseline.sql against payrun on a hand-made store: the same worked and night
/// minutes (shifts across midnight and across the period's edges, centred and explicit breaks),
/// and the documented differences elsewhere.
@Suite("SQL baseline of payrun bench")
struct SQLBaselineTests {
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("benchmarks/sql-baseline.sql").path
    }

    @Test("the baseline counts worked and night minutes exactly as payrun; it does not prorate a mid-month monthly wage")
    func sameMinutesAsPayrun() throws {
        let database = try TestDatabase.create("sql_baseline")
        defer { database.drop() }
        let c = try database.connect()
        defer { c.close() }
        try Migrator().migrate(c)
        func at(_ text: String) -> String { "'\(text):00+09'::timestamptz" }
        try c.executeScript("""
            INSERT INTO payrun.tenants (id, name) VALUES (1, 'T');
            INSERT INTO payrun.workplaces (tenant_id, id, name, size_class) VALUES (1, 1, 'big', 'five_or_more'), (1, 2, 'small', 'under_five');
            INSERT INTO payrun.employees (tenant_id, id, workplace_id, name, hired_on, left_on) VALUES
                (1, 1, 1, 'hourly', NULL, NULL), (1, 2, 2, 'daily', NULL, NULL), (1, 3, 1, 'monthly', '2026-10-15', NULL),
                (1, 4, 1, 'gone', NULL, '2026-09-20');
            INSERT INTO payrun.contracts (tenant_id, employee_id, effective_from, wage_type, wage_won, default_break_minutes, weekly_allowance,
                scheduled_mon_minutes, scheduled_tue_minutes, scheduled_wed_minutes, scheduled_thu_minutes, scheduled_fri_minutes) VALUES
                (1, 1, '2026-01-01', 'hourly', 12000, 30, 'never', 480, 480, 480, 480, 480),
                (1, 2, '2026-01-01', 'daily', 100000, NULL, 'never', 480, 480, 480, 480, 480),
                (1, 3, '2026-10-15', 'monthly', 3000000, NULL, 'statutory', 480, 480, 480, 480, 480),
                (1, 4, '2026-01-01', 'hourly', 12000, NULL, 'statutory', 480, 480, 480, 480, 480);
            INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at, break_minutes, breaks) VALUES
                (1, 1, \(at("2026-10-13 09:00")), \(at("2026-10-13 18:00")), 60, NULL),
                (1, 1, \(at("2026-10-14 22:00")), \(at("2026-10-15 07:00")), 60, NULL),
                (1, 1, \(at("2026-09-30 23:00")), \(at("2026-10-01 05:00")), 0, NULL),
                (1, 1, \(at("2026-10-31 20:00")), \(at("2026-11-01 04:00")), NULL,
                    tstzmultirange(tstzrange(\(at("2026-10-31 23:30")), \(at("2026-11-01 00:30"))))),
                (1, 1, \(at("2026-10-20 17:00")), \(at("2026-10-20 23:00")), NULL, NULL),
                (1, 1, \(at("2026-10-22 19:01")), \(at("2026-10-23 01:00")), 61, NULL),
                (1, 2, \(at("2026-10-13 09:00")), \(at("2026-10-13 18:00")), 60, NULL),
                (1, 2, \(at("2026-10-14 09:00")), \(at("2026-10-14 18:00")), 60, NULL),
                (1, 3, \(at("2026-10-15 09:00")), \(at("2026-10-15 18:00")), 60, NULL),
                (1, 3, \(at("2026-10-16 09:00")), \(at("2026-10-16 18:00")), 60, NULL),
                (1, 4, \(at("2026-09-10 09:00")), \(at("2026-09-10 18:00")), 60, NULL);
            """)

        // payrun: the real month-end through a WorkerPool.
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 1, lease: 10),
                                          handlers: PayrollJobHandlers.all(), logger: WorkerFixture.logger))
        defer { pool.stop() }
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let calculated = try WorkerFixture.wait(timeout: .seconds(60)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.payroll_runs WHERE status IN ('calculated', 'calculated_with_errors')", on: c) == 2
        }
        #expect(calculated, "the month-end runs were not calculated: \(pool.error ?? "")")

        try c.execute("SELECT set_config('payrun_bench.period_start', '2026-10-01', false)")
        try c.executeScript(try String(contentsOfFile: Self.script, encoding: .utf8))

        let rows = try c.query("""
            SELECT b.employee_id, b.worked_minutes, b.night_minutes, p.worked_minutes, p.night_minutes, b.gross_won, p.gross_won,
                   p.error IS NULL, b.base_won, b.night_premium_won
              FROM payrun_bench.sql_baseline_result b FULL JOIN payrun.payslips p ON p.tenant_id = b.tenant_id AND p.employee_id = b.employee_id
             ORDER BY coalesce(b.employee_id, p.employee_id)
            """)
        #expect(rows.count == 3, "employees 1–3 are in the period, 4 left before it")
        var byEmployee: [Int64: PostgresRow] = [:]
        for row in rows { byEmployee[try row.decode(Int64?.self, at: 0) ?? -1] = row }
        // Hand-computed: 480 + 480 + 300 (from 00:00) + 210 (to 24:00, explicit break 23:30–00:30)
        // + 330 (default 30-minute break) + 298; night 0 + 420 + 300 + 90 + 60 + 149 (break 21:30–22:31).
        let expected: [Int64: (worked: Int32, night: Int32)] = [1: (2098, 1019), 2: (960, 0), 3: (960, 0)]
        for (id, minutes) in expected {
            guard let row = byEmployee[id] else { Issue.record("employee \(id) missing from the baseline or payrun"); continue }
            #expect(try row.bool(at: 7), "payrun computed employee \(id) without error")
            #expect(try row.decode(Int64?.self, at: 1) == Int64(minutes.worked), "baseline worked minutes of \(id)")
            #expect(try row.decode(Int64?.self, at: 2) == Int64(minutes.night), "baseline night minutes of \(id)")
            #expect(try row.decode(Int32?.self, at: 3) == minutes.worked, "payrun worked minutes of \(id)")
            #expect(try row.decode(Int32?.self, at: 4) == minutes.night, "payrun night minutes of \(id)")
        }
        // Hourly, five or more: base ⌈2098 × 12,000 / 60⌉ and night premium ⌈1019 × 12,000 / 120⌉.
        #expect(try byEmployee[1]?.decode(Int64?.self, at: 8) == 419_600)
        #expect(try byEmployee[1]?.decode(Int64?.self, at: 9) == 101_900)
        // Daily wage: two days.
        #expect(try byEmployee[2]?.decode(Int64?.self, at: 5) == 200_000)
        // Documented difference: the monthly wage of a mid-month hire is not prorated by the baseline.
        #expect(try byEmployee[3]?.decode(Int64?.self, at: 5) == 3_000_000)
        if let payrunGross = try byEmployee[3]?.decode(Int64?.self, at: 6) { #expect(payrunGross < 3_000_000) }
    }
}
