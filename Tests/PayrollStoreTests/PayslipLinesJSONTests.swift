import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// Payslip lines stored as `json` (0014): exactly the text payrun computed, on every write path;
/// every stored line states its method; a database migrated before 0014 keeps its payslips.
@Suite("Payslip lines stored as json (0014)")
struct PayslipLinesJSONTests {
    typealias F = PayrollDataFixture

    /// Each payslip's `earnings` and `deductions` as stored (text), by employee.
    static func storedLines(_ c: PostgresConnection) throws -> [Int64: (earnings: String, deductions: String)] {
        var lines: [Int64: (earnings: String, deductions: String)] = [:]
        for row in try c.query("""
            SELECT employee_id, earnings::text, deductions::text FROM payrun.payslips
             WHERE tenant_id = $1 AND run_id = $2 ORDER BY employee_id
            """, [.int(F.tenant), .int(F.run)]) {
            lines[try row.int64(at: 0)] = (try row.string(at: 1), try row.string(at: 2))
        }
        return lines
    }

    /// What `PayslipJSON` computes for each successful payslip, by employee.
    static func computedLines(_ payslips: [ComputedPayslip]) throws -> [Int64: (earnings: String, deductions: String)] {
        var lines: [Int64: (earnings: String, deductions: String)] = [:]
        for p in payslips {
            let slip = try p.result.get()
            lines[p.employeeId] = (String(decoding: PayslipJSON.earnings(slip.earnings), as: UTF8.self),
                                   String(decoding: PayslipJSON.deductions(slip.deductions), as: UTF8.self))
        }
        return lines
    }

    static func expectSame(_ stored: [Int64: (earnings: String, deductions: String)],
                           _ computed: [Int64: (earnings: String, deductions: String)], _ path: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(stored.keys.sorted() == computed.keys.sorted(), "\(path)", sourceLocation: sourceLocation)
        for (employee, lines) in computed {
            #expect(stored[employee]?.earnings == lines.earnings, "\(path): earnings of \(employee)", sourceLocation: sourceLocation)
            #expect(stored[employee]?.deductions == lines.deductions, "\(path): deductions of \(employee)", sourceLocation: sourceLocation)
        }
    }

    @Test("the direct COPY, the upsert replacement from column arrays and the single upsert store exactly the text PayslipJSON computed")
    func everyWritePathStoresTheComputedText() throws {
        let c = try F.migrated("json_lines_paths")
        try F.seed(c)
        let computed = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            let run = try F.run(c)
            let chunk = try ChunkLoader.load(run: run, selection: .range(from: F.hourly, to: F.monthly), on: c)
            let payslips = ChunkProcessor.compute(chunk, calculate: ChunkProcessor.serial)
            let direct = try PayslipWriter.writeReportingPath(payslips, run: run, on: c)
            #expect(direct.rows == 2 && direct.path == .direct)
            return (run: run, payslips: payslips)
        }
        let expected = try Self.computedLines(computed.payslips)
        // Not jsonb's normalized spelling ("key": value, keys sorted): the writer's own text.
        #expect(expected.values.allSatisfy { $0.earnings.contains("\"code\":\"") && !$0.earnings.contains("\"amount\": ") })
        Self.expectSame(try Self.storedLines(c), expected, "direct COPY")

        let replaced = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            return try PayslipWriter.writeReportingPath(computed.payslips, run: computed.run, on: c)
        }
        #expect(replaced.rows == 2 && replaced.path == .replacement)
        Self.expectSame(try Self.storedLines(c), expected, "upsert replacement")

        for p in computed.payslips {
            let single = try c.transaction { c in
                try TenantScope.set(F.tenant, on: c)
                return try PayslipWriter.writeReportingPath([p], run: computed.run, on: c)
            }
            #expect(single.rows == 1 && single.path == .single)
        }
        Self.expectSame(try Self.storedLines(c), expected, "single upsert")
        #expect(try c.query("SELECT revision FROM payrun.payslips ORDER BY employee_id").map { try $0.int32(at: 0) } == [3, 3])

        let types = try c.query("""
            SELECT DISTINCT pg_typeof(earnings)::text || '/' || pg_typeof(deductions)::text || '/'
                   || pg_typeof(warnings)::text FROM payrun.payslips
            """).map { try $0.string(at: 0) }
        #expect(types == ["json/json/jsonb"])
        // And they read back into the payslips the calculator gives.
        for s in try StoredPayslip.fetch(tenantId: F.tenant, runId: F.run, on: c) {
            #expect(try s.result.get() == (try PayrollCalculator.calculate(F.expectedInput(s.employeeId))))
        }
    }

    @Test("every earnings and deduction line of every payslip of a seeded month-end has a non-empty method")
    func everyStoredLineHasAMethod() throws {
        let c = try PackedMonthEndTests.seeded("json_lines_method")
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let outcome = try PackedMonthEndTests.planAll(c, chunkMax: 2_000)
        for job in outcome.jobs { _ = try PackedMonthEndTests.process(c, job) }
        let payslips = try PackedMonthEndTests.count(c, "SELECT count(*) FROM payrun.payslips WHERE error IS NULL")
        #expect(payslips == Int64(outcome.employees))
        let counts = try c.queryOne("""
            SELECT (SELECT count(*) FROM payrun.payslips p, json_array_elements(p.earnings) l),
                   (SELECT count(*) FROM payrun.payslips p, json_array_elements(p.earnings) l
                     WHERE json_typeof(l -> 'method') IS DISTINCT FROM 'string' OR l ->> 'method' = ''),
                   (SELECT count(*) FROM payrun.payslips p, json_array_elements(p.deductions) l),
                   (SELECT count(*) FROM payrun.payslips p, json_array_elements(p.deductions) l
                     WHERE json_typeof(l -> 'method') IS DISTINCT FROM 'string' OR l ->> 'method' = '')
            """)
        #expect(try counts?.int64(at: 0) ?? 0 >= payslips)
        #expect(try counts?.int64(at: 1) == 0)
        #expect(try counts?.int64(at: 2) ?? 0 >= payslips * 4)
        #expect(try counts?.int64(at: 3) == 0)
    }

    @Test("a database with payslips migrated up to 0013 moves to 0014: every payslip reads back the same, the lines become json")
    func migrationKeepsStoredPayslips() throws {
        let c = try StoreTestDatabase.connectToEmpty("json_lines_migrate")
        let all = try Migrator()
        let before = try Migrator(migrations: all.migrations.filter { $0.version < 14 })
        try before.migrate(c)
        #expect(try Self.lineTypes(c) == ["payslip_staging.deductions jsonb", "payslip_staging.earnings jsonb",
                                           "payslips.deductions jsonb", "payslips.earnings jsonb"])
        // A compression method set before 0014 (the lead's 0013 compresses payslips) survives the type change.
        try c.execute("ALTER TABLE payrun.payslips ALTER COLUMN earnings SET COMPRESSION lz4")
        try StoreFixture.populateTwoTenants(c)
        // A failed employee: error, no lines.
        try c.execute("INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES ($1, 1202, $2, 'Failed')",
                      [.int(StoreFixture.tenantA), .int(StoreFixture.workplaceA)])
        try c.execute("""
            INSERT INTO payrun.payslips (tenant_id, run_id, employee_id, run_version, error)
            VALUES ($1, $2, 1202, 1, '{"code":"invalid_value","message":"overlapping shifts","field":"shifts[3].start"}')
            """, [.int(StoreFixture.tenantA), .int(StoreFixture.runA)])
        func read() throws -> [String] {
            try [(StoreFixture.tenantA, StoreFixture.runA), (StoreFixture.tenantB, StoreFixture.runB)].flatMap { tenant, run in
                try StoredPayslip.fetch(tenantId: tenant, runId: run, on: c).map { s in
                    switch s.result {
                    case .success(let p): "\(s.employeeId) r\(s.revision) " + CalcResponseEncoder.encode(p)
                    case .failure(let e): "\(s.employeeId) r\(s.revision) error \(e.code.rawValue) \(e.message) \(e.field ?? "-")"
                    }
                }
            }
        }
        let stored = try read()
        #expect(stored.count == 3)
        #expect(stored.contains { $0.contains("120h × 10,320원") && $0.contains("1,692,000원 × 4.75%") })

        let applied = try all.migrate(c)
        #expect(applied.map(\.version).contains(14))
        #expect(applied.allSatisfy { $0.version >= 14 })
        #expect(try Self.lineTypes(c) == ["payslip_staging.deductions json", "payslip_staging.earnings json",
                                           "payslips.deductions json", "payslips.earnings json"])
        #expect(try read() == stored)
        let compression = try c.queryOne("""
            SELECT attcompression::text FROM pg_attribute WHERE attrelid = 'payrun.payslips'::regclass AND attname = 'earnings'
            """)
        #expect(try compression?.string(at: 0) == "l")
        let constraints = try c.query("""
            SELECT conname FROM pg_constraint WHERE conrelid = 'payrun.payslips'::regclass AND conname LIKE 'payslips_lines%' ORDER BY 1
            """).map { try $0.string(at: 0) }
        #expect(constraints == ["payslips_lines_are_arrays"])
        // The lines are still required to be arrays.
        let notArray = #expect(throws: PostgresError.self) {
            try c.execute("UPDATE payrun.payslips SET earnings = '{}' WHERE employee_id = $1", [.int(StoreFixture.employeeA)])
        }
        #expect(notArray?.constraint == "payslips_lines_are_arrays")
    }

    /// `table.column type` of every `earnings`/`deductions` column of the schema.
    static func lineTypes(_ c: PostgresConnection) throws -> [String] {
        try c.query("""
            SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns
             WHERE table_schema = 'payrun' AND column_name IN ('earnings', 'deductions') ORDER BY 1
            """).map { try $0.string(at: 0) }
    }
}
