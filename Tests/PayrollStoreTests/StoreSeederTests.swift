import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// `StoreSeeder` on real databases: deterministic, realistic, valid payroll input, fast enough.
@Suite("StoreSeeder")
struct StoreSeederTests {
    static let small = SeedSpec(tenants: 2, employees: 300, seed: 7)

    static func seeded(_ label: String, _ spec: SeedSpec) throws -> (PostgresConnection, SeedSummary) {
        let c = try StoreFixture.migrated(label)
        return (c, try StoreSeeder.seed(spec, on: c))
    }

    /// md5 of every row of each seeded table, in key order (superuser: row-level security does not hide rows).
    static func digests(_ c: PostgresConnection) throws -> [String: String] {
        let keys = ["tenants": "t.id", "workplaces": "t.tenant_id, t.id",
                    "workplace_holidays": "t.tenant_id, t.workplace_id, t.holiday_date", "employees": "t.tenant_id, t.id",
                    "contracts": "t.tenant_id, t.id", "shifts": "t.tenant_id, t.id", "absences": "t.tenant_id, t.id"]
        var result: [String: String] = [:]
        for (table, key) in keys {
            result[table] = try c.queryOne("SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY \(key)), '')) FROM payrun.\(table) t")?
                .string(at: 0)
        }
        return result
    }

    static func count(_ c: PostgresConnection, _ sql: String) throws -> Int {
        Int(try c.queryOne(sql)?.int64(at: 0) ?? -1)
    }

    @Test("the same spec seeds identical tables into two fresh databases; another seed differs")
    func deterministic() throws {
        let (a, _) = try Self.seeded("seed_det_a", Self.small)
        defer { a.close() }
        let (b, _) = try Self.seeded("seed_det_b", Self.small)
        defer { b.close() }
        var other = Self.small
        other.seed = 8
        let (c, _) = try Self.seeded("seed_det_c", other)
        defer { c.close() }
        let digestA = try Self.digests(a), digestB = try Self.digests(b), digestC = try Self.digests(c)
        #expect(digestA.count == StoreSeeder.tables.count)
        #expect(digestA == digestB)
        for table in ["workplaces", "employees", "contracts", "shifts", "absences"] {
            #expect(digestA[table] != digestC[table], "table \(table) is the same under another seed")
        }
    }

    @Test("a small store has the realistic mix, and SeedSummary counts equal the tables")
    func realisticMix() throws {
        let (c, summary) = try Self.seeded("seed_mix", Self.small)
        defer { c.close() }
        #expect(summary.tenantIds.count == 2)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.tenants") == 2)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.workplaces") == summary.workplaces)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.workplace_holidays") == summary.workplaceHolidays)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.employees") == 300 && summary.employees == 300)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.contracts") == summary.contracts)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.shifts") == summary.shifts)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.absences") == summary.absences)
        #expect(summary.contracts > 300)  // some employees had a raise
        let phases = summary.phases.map(\.name)
        for phase in ["generate", "copy employees", "copy shifts", "analyze", "restore shifts_pkey", "restore contracts_no_overlap"] {
            #expect(phases.contains(phase), "no phase \(phase) in \(phases)")
        }

        // Both size classes; every workplace is picked up by the worker's month-end scheduler.
        #expect(try Self.count(c, "SELECT count(DISTINCT size_class) FROM payrun.workplaces") == 2)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.workplaces WHERE month_end_day IS NULL") == 0)
        #expect(try Self.count(c, """
            SELECT count(*) FROM payrun.workplaces w
             WHERE (size_class = 'under_five') <> ((SELECT count(*) FROM payrun.employees e WHERE e.tenant_id = w.tenant_id AND e.workplace_id = w.id) < 5)
            """) == 0)
        #expect(try Self.count(c, "SELECT count(DISTINCT wage_type) FROM payrun.contracts") == 3)
        // Hires and leavers inside October 2026.
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.employees WHERE hired_on BETWEEN '2026-10-02' AND '2026-10-31'") > 0)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.employees WHERE left_on BETWEEN '2026-10-01' AND '2026-10-30'") > 0)
        // Part-timers under 15 h a week, premiums switched off, business income, non-taxable meals.
        #expect(try Self.count(c, """
            SELECT count(*) FROM payrun.contracts WHERE scheduled_mon_minutes + scheduled_tue_minutes + scheduled_wed_minutes
              + scheduled_thu_minutes + scheduled_fri_minutes + scheduled_sat_minutes + scheduled_sun_minutes < 900
            """) > 0)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.contracts WHERE night_allowance = 'never'") > 0)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.contracts WHERE tax <> 'simplified'") > 0)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.contracts WHERE non_taxable_meals_won > 0") > 0)
        // Night work (after 22:00 Korea time), days over 8 h, work on national holidays, explicit breaks.
        #expect(try Self.count(c, """
            SELECT count(*) FROM payrun.shifts
             WHERE (ends_at AT TIME ZONE 'Asia/Seoul')::date > (starts_at AT TIME ZONE 'Asia/Seoul')::date
                OR (ends_at AT TIME ZONE 'Asia/Seoul')::time > '22:00'
            """) > 0)
        #expect(try Self.count(c, """
            SELECT count(*) FROM payrun.shifts WHERE ends_at - starts_at - coalesce(break_minutes, 0) * interval '1 minute' > interval '8 hours'
            """) > 0)
        #expect(try Self.count(c, """
            SELECT count(*) FROM payrun.shifts s JOIN payrun.holidays h ON h.holiday_date = (s.starts_at AT TIME ZONE 'Asia/Seoul')::date
            """) > 0)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.shifts WHERE breaks IS NOT NULL") > 0)
        #expect(try Self.count(c, "SELECT count(DISTINCT kind) FROM payrun.absences") == 3)
        // About 22 shifts per employee inside the month.
        let inMonth = try Self.count(c, """
            SELECT count(*) FROM payrun.shifts WHERE starts_at >= '2026-10-01 00:00+09' AND starts_at < '2026-11-01 00:00+09'
            """)
        let expected: ClosedRange<Int> = 5_610...7_590  // 300 × 22 ± 15 %
        #expect(expected.contains(inMonth), "\(inMonth) shifts in October for 300 employees")
    }

    @Test("every employee of the seeded store loads with ChunkLoader and computes; ids are contiguous per workplace")
    func seededStoreIsValidInput() throws {
        let (c, summary) = try Self.seeded("seed_valid", SeedSpec(tenants: 3, employees: 400, seed: 3))
        defer { c.close() }
        #expect(try Self.count(c, """
            SELECT count(*) FROM (SELECT tenant_id, workplace_id FROM payrun.employees GROUP BY 1, 2
                                   HAVING max(id) - min(id) + 1 <> count(*)) AS gaps
            """) == 0)
        // The identity sequences moved past the seeded ids.
        #expect(try Self.count(c, "SELECT nextval(pg_get_serial_sequence('payrun.shifts', 'id'))") == summary.shifts + 1)

        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        #expect(scheduled.count == summary.workplaces && scheduled.allSatisfy(\.created))
        var loaded = 0
        var failures: [String] = []
        for s in scheduled {
            try c.transaction { c in
                try TenantScope.set(s.tenantId, on: c)
                guard let run = try PayrollRun.fetch(tenantId: s.tenantId, runId: s.runId, on: c) else {
                    failures.append("run \(s.runId) missing")
                    return
                }
                let chunk = try ChunkLoader.load(run: run, selection: .range(from: 1, to: Int64.max), on: c)
                loaded += chunk.employees.count
                for p in ChunkProcessor.compute(chunk, calculate: ChunkProcessor.serial) {
                    if case .failure(let error) = p.result { failures.append("employee \(p.employeeId): \(error)") }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // Everyone but the people who left before October is computed.
        let employedInPeriod = try Self.count(c, "SELECT count(*) FROM payrun.employees WHERE left_on IS NULL OR left_on >= '2026-10-01'")
        #expect(loaded == employedInPeriod && loaded > 380)
    }

    /// Every constraint and index of the payrun schema with its definition and validity.
    static func schemaShape(_ c: PostgresConnection) throws -> [String] {
        try c.query("""
            SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) || ' ' || convalidated::text
              FROM pg_constraint WHERE connamespace = 'payrun'::regnamespace
            UNION ALL
            SELECT indexrelid::regclass::text || ' ' || pg_get_indexdef(indexrelid) || ' ' || indisvalid::text
              FROM pg_index WHERE indrelid::regclass::text LIKE 'payrun.%'
            ORDER BY 1
            """).map { try $0.string(at: 0) }
    }

    @Test("after a bulk seed every constraint and index is back, validated, exactly as migrated")
    func schemaRestored() throws {
        let fresh = try StoreFixture.migrated("seed_shape_fresh")
        defer { fresh.close() }
        let (c, _) = try Self.seeded("seed_shape", SeedSpec(tenants: 1, employees: 30))
        defer { c.close() }
        let expected = try Self.schemaShape(fresh)
        #expect(expected.contains { $0.contains("shifts_pkey") } && expected.contains { $0.contains("contracts_no_overlap") })
        #expect(try Self.schemaShape(c) == expected)
    }

    @Test("a seed that fails half-way leaves no rows and the schema as it was (one transaction)")
    func failedSeedLeavesNothing() throws {
        let c = try StoreFixture.migrated("seed_fail")
        defer { c.close() }
        let before = try Self.schemaShape(c)
        // Refuses every shift with a break: the shifts COPY fails after tenants, workplaces, employees, contracts.
        try c.execute("ALTER TABLE payrun.shifts ADD CONSTRAINT test_no_breaks CHECK (break_minutes IS NULL OR break_minutes = 0)")
        let shape = try Self.schemaShape(c)
        #expect(shape != before)
        #expect(throws: PostgresError.self) { try StoreSeeder.seed(SeedSpec(tenants: 1, employees: 50), on: c) }
        for table in StoreSeeder.tables {
            #expect(try Self.count(c, "SELECT count(*) FROM payrun.\(table)") == 0, "rows left in \(table)")
        }
        #expect(try Self.schemaShape(c) == shape)
    }

    @Test("bad specs are invalid_request errors naming the value, before anything is written")
    func badSpecs() throws {
        let bad: [(SeedSpec, String)] = [
            (SeedSpec(tenants: 1, employees: 0), "employees"),
            (SeedSpec(tenants: 0, employees: 10), "tenants"),
            (SeedSpec(tenants: 11, employees: 10), "tenants (11) must not exceed employees (10)"),
            (SeedSpec(tenants: 1, employees: 10, shiftsPerEmployee: 0), "shifts per employee"),
            (SeedSpec(tenants: 1, employees: 10, shiftsPerEmployee: 27), "shifts per employee"),
            (SeedSpec(tenants: 1, employees: 10, period: LocalDate(year: 2026, month: 10, day: 2)!), "first day of a month"),
            (SeedSpec(tenants: 1, employees: 10, period: LocalDate(year: 2027, month: 1, day: 1)!), "outside the months"),
        ]
        let c = try StoreFixture.migrated("seed_bad")
        defer { c.close() }
        for (spec, words) in bad {
            do {
                _ = try StoreSeeder.seed(spec, on: c)
                Issue.record("\(spec) was accepted")
            } catch let error as PayrollStoreError {
                #expect(error.kind == .invalidRequest)
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.tenants") == 0)
    }

    @Test("a role subject to row-level security is told to seed as a superuser or BYPASSRLS role")
    func refusesRoleUnderRowLevelSecurity() throws {
        let c = try StoreFixture.migrated("seed_rls")
        defer { c.close() }
        try c.execute("SET ROLE payrun_backend")
        defer { _ = try? c.execute("RESET ROLE") }
        do {
            _ = try StoreSeeder.seed(SeedSpec(tenants: 1, employees: 5), on: c)
            Issue.record("seeding as a role under row-level security was accepted")
        } catch let error as PayrollStoreError {
            #expect(error.kind == .invalidState && error.message.contains("BYPASSRLS"), "\(error.message)")
        }
    }

    @Test("seeding again adds new tenants after the existing ones, with ids past the earlier seeds' (bulk and incremental paths)")
    func seedsAgainIntoAStore() throws {
        let (c, first) = try Self.seeded("seed_twice", SeedSpec(tenants: 1, employees: 50))
        defer { c.close() }
        let second = try StoreSeeder.seed(SeedSpec(tenants: 2, employees: 60, seed: 2), on: c)
        #expect(second.tenantIds == [first.tenantIds[0] + 1, first.tenantIds[0] + 2])
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.employees") == 110)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.shifts") == first.shifts + second.shifts)
        #expect(try Self.count(c, "SELECT count(DISTINCT id) FROM payrun.employees") == 110)
        // A seed much smaller than the store keeps the shift indexes (incremental path).
        #expect(try !StoreSeeder.shiftsAtMost(3 * 22, on: c))
        let third = try StoreSeeder.seed(SeedSpec(tenants: 1, employees: 3, seed: 3), on: c)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.shifts") == first.shifts + second.shifts + third.shifts)
        #expect(try Self.count(c, "SELECT count(*) FROM payrun.employees WHERE tenant_id = \(third.tenantIds[0])") == 3)
    }
}
