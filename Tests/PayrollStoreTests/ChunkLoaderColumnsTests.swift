import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// The contract and employee COPYs send defaults as NULL and schedule minutes in pairs
/// (`ContractRow.columnsSQL`, `EmployeeRow.columnsSQL`): every stored value must read back exactly,
/// also values the CHECKs would refuse (a broken import), texts that differ from a default only in
/// case or spacing, and the int4 extremes of the packed pairs.
@Suite("ChunkLoader column forms")
struct ChunkLoaderColumnsTests {
    typealias F = PayrollDataFixture

    /// The contract's fields as the loader reads them: its stored `load_fields` (migration 0020).
    static func packedRow(_ id: Int64, _ c: PostgresConnection) throws -> ChunkLoader.ContractRow? {
        var found: ChunkLoader.ContractRow?
        _ = try c.copyOut("COPY (SELECT \(ChunkLoader.ContractRow.loadFieldsSQL) FROM payrun.contracts x WHERE x.id = \(id)) TO STDOUT (FORMAT binary)") { row in
            found = try ChunkLoader.ContractRow(loadFields: &row)
        }
        #expect(try Self.loadFieldsMatchColumns(id, c))
        return found
    }

    /// Whether the stored `load_fields` of contract `id` are byte for byte the fields a binary COPY
    /// of `columnsSQL` sends for it now (the definition migration 0020's expression must follow).
    static func loadFieldsMatchColumns(_ id: Int64, _ c: PostgresConnection) throws -> Bool {
        var sent: [UInt8]?, stored: [UInt8]?
        _ = try c.copyOut("COPY (SELECT \(ChunkLoader.ContractRow.columnsSQL) FROM payrun.contracts x WHERE x.id = \(id)) TO STDOUT (FORMAT binary)") { row in
            #expect(row.fieldCount == ChunkLoader.ContractRow.fieldCount)
            sent = Array(row.unreadBytes)
        }
        _ = try c.copyOut("COPY (SELECT x.load_fields FROM payrun.contracts x WHERE x.id = \(id)) TO STDOUT (FORMAT binary)") { row in
            stored = try row.bytea()
        }
        return sent != nil && sent == stored
    }

    static func text<V>(_ keyword: StoredKeyword<V>?) -> String? {
        switch keyword {
        case nil: return nil
        case .known(let value)?:
            if let weekday = value as? Weekday { return weekday.key }
            if let raw = value as? any RawRepresentable { return raw.rawValue as? String }
            return "\(value)"
        case .unknown(let text)?: return text
        }
    }

    @Test("contract fields read back exactly as stored: defaults sent as NULL, other texts as they are, schedule pairs at the int4 extremes")
    func contractFieldsReadBack() throws {
        let c = try F.migrated("loader_columns")
        try F.seed(c)
        try ChunkLoaderDecodingTests.dropChecks("contracts", c)
        let id = try c.queryOne("SELECT min(id) FROM payrun.contracts WHERE tenant_id = $1", [.int(F.tenant)])?.int64(at: 0) ?? -1
        let schedules: [[Int32]] = [
            [0, 0, 0, 0, 0, 0, 0], [480, 480, 480, 480, 480, 0, 0], [Int32.min, Int32.max, -1, 1, 1440, 1441, -1440],
            [Int32.max, Int32.min, 0, -1, Int32.min, Int32.max, Int32.max], [-1, -1, -1, -1, -1, -1, Int32.min],
        ]
        let texts: [(holiday: String, allowance: String, tax: String)] = [
            ("sun", "statutory", "simplified"), ("Sun", "Statutory", "SIMPLIFIED"), ("sun ", " statutory", "simplified\n"),
            ("mon", "always", "none"), ("", "", ""), ("일", "항상", "간이"),
        ]
        for (k, s) in schedules.enumerated() {
            let t = texts[k % texts.count]
            let flag = k % 2 == 0
            let amount: Int64 = [0, 1, -1, Int64.max, Int64.min][k]
            try c.execute("""
                UPDATE payrun.contracts SET scheduled_mon_minutes = $2, scheduled_tue_minutes = $3, scheduled_wed_minutes = $4,
                       scheduled_thu_minutes = $5, scheduled_fri_minutes = $6, scheduled_sat_minutes = $7, scheduled_sun_minutes = $8,
                       weekly_holiday = $9, weekly_allowance = $10, night_allowance = $10, overtime_allowance = 'statutory',
                       holiday_allowance = $10, tax = $11, insures_national_pension = $12, insures_health = NOT $12,
                       insures_employment = true, non_taxable_meals_won = $13, non_taxable_car_allowance_won = 0,
                       non_taxable_childcare_won = $13
                 WHERE id = $1
                """, [.int(id), .int(Int64(s[0])), .int(Int64(s[1])), .int(Int64(s[2])), .int(Int64(s[3])), .int(Int64(s[4])),
                      .int(Int64(s[5])), .int(Int64(s[6])), .text(t.holiday), .text(t.allowance), .text(t.tax), .bool(flag),
                      .int(amount)])
            guard let r = try Self.packedRow(id, c) else { Issue.record("contract \(id) not read"); return }
            #expect([r.schedule.0, r.schedule.1, r.schedule.2, r.schedule.3, r.schedule.4, r.schedule.5, r.schedule.6] == s)
            #expect(Self.text(r.weeklyHoliday) == t.holiday)
            #expect(Self.text(r.weeklyAllowance) == t.allowance && Self.text(r.nightAllowance) == t.allowance)
            #expect(Self.text(r.overtimeAllowance) == "statutory" && Self.text(r.holidayAllowance) == t.allowance)
            #expect(Self.text(r.tax) == t.tax)
            #expect(r.insurance.nationalPension == flag && r.insurance.health == !flag && r.insurance.employment)
            #expect(r.nonTaxable.mealsWon == amount && r.nonTaxable.carAllowanceWon == 0 && r.nonTaxable.childcareWon == amount)
            #expect(r.id == id)
        }
    }

    @Test("load_fields (0020) hold the bytes COPY sends for columnsSQL: NULLs, set optional fields, texts with backslashes")
    func loadFieldsFollowUpdates() throws {
        let c = try F.migrated("loader_load_fields")
        try F.seed(c)
        try ChunkLoaderDecodingTests.dropChecks("contracts", c)
        // A contract that is its employee's only one (its end can be set and unset without an overlap).
        let id = try c.queryOne("""
            SELECT min(x.id) FROM payrun.contracts x WHERE x.tenant_id = $1
               AND NOT EXISTS (SELECT 1 FROM payrun.contracts y WHERE y.tenant_id = x.tenant_id AND y.employee_id = x.employee_id AND y.id <> x.id)
            """, [.int(F.tenant)])?.int64(at: 0) ?? -1
        // Texts that bytea's input would misread if not escaped: a leading `\x`, a lone backslash,
        // doubled backslashes, octal-looking escapes; and multibyte text.
        let texts = ["\\x41", "\\", "a\\\\b", "\\101\\", "monthly", "월급 \\ 주"]
        for (k, text) in texts.enumerated() {
            let set = k % 2 == 0
            try c.execute("""
                UPDATE payrun.contracts SET wage_type = $2, week_start = CASE WHEN $3 THEN $2 END,
                       effective_to_exclusive = CASE WHEN $3 THEN effective_from + 1 END,
                       default_break_minutes = CASE WHEN $3 THEN -7 END,
                       national_pension_base_won = CASE WHEN $3 THEN 9223372036854775807 END,
                       health_base_won = CASE WHEN $3 THEN -9223372036854775808 END,
                       employment_base_won = CASE WHEN $3 THEN 0 END, tax = $2
                 WHERE id = $1
                """, [.int(id), .text(text), .bool(set)])
            guard let r = try Self.packedRow(id, c) else { Issue.record("contract \(id) not read"); return }
            #expect(Self.text(r.wageType) == text && Self.text(r.tax) == text)
            #expect(Self.text(r.weekStart) == (set ? text : nil))
            #expect(r.effectiveToExclusive == (set ? r.effectiveFrom.adding(days: 1) : nil))
            #expect(r.defaultBreakMinutes == (set ? -7 : nil))
            #expect(r.insuranceBase.nationalPensionWon == (set ? Int64.max : nil))
            #expect(r.insuranceBase.healthWon == (set ? Int64.min : nil))
            #expect(r.insuranceBase.employmentWon == (set ? 0 : nil))
        }
        // Every contract of the fixture, as seeded.
        for row in try c.query("SELECT id FROM payrun.contracts ORDER BY id") {
            #expect(try Self.loadFieldsMatchColumns(try row.int64(at: 0), c))
        }
    }

    @Test("employee fields read back exactly as stored: family, children and ratio at and off their defaults")
    func employeeFieldsReadBack() throws {
        let c = try F.migrated("loader_employee_columns")
        try F.seed(c)
        try ChunkLoaderDecodingTests.dropChecks("employees", c)
        for (family, children, ratio) in [(1, 0, 100), (2, 1, 80), (Int16.max, Int16.min, Int16.min), (0, -1, 120), (-1, 0, 101)] {
            try c.execute("UPDATE payrun.employees SET family = $2, children_8_to_20 = $3, withholding_ratio = $4 WHERE tenant_id = $1 AND id = $5",
                          [.int(F.tenant), .int(Int64(family)), .int(Int64(children)), .int(Int64(ratio)), .int(F.hourly)])
            var read: [ChunkLoader.EmployeeRow] = []
            _ = try c.copyOut("""
                COPY (SELECT id, \(ChunkLoader.EmployeeRow.columnsSQL) FROM payrun.employees WHERE tenant_id = \(F.tenant) AND id = \(F.hourly))
                TO STDOUT (FORMAT binary)
                """) { row in read.append(try ChunkLoader.EmployeeRow(id: try row.int64(), row: &row)) }
            #expect(read.count == 1)
            #expect(read.first.map { [$0.family, $0.children, $0.ratio] } == [Int(family), Int(children), Int(ratio)])
        }
    }
}
