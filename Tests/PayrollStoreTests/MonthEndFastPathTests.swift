import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// The month-end fast paths: the direct COPY of a first calculation against the upsert
/// replacement, the run-row locking that lets chunks of one run proceed side by side, and the
/// binary decoding of explicit breaks.
@Suite("Month-end fast paths")
struct MonthEndFastPathTests {
    typealias F = PayrollDataFixture

    /// Every stored column of the run's payslips but `revision` and `computed_at`, one text per row.
    static func storedRows(_ c: PostgresConnection) throws -> [String] {
        try c.query("""
            SELECT concat_ws('|', tenant_id, run_id, employee_id, run_version, rule_set, encode(input_digest, 'hex'),
                             worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes,
                             holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes,
                             gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won,
                             earnings::text, deductions::text, warnings::text, error::text)
              FROM payrun.payslips WHERE tenant_id = $1 AND run_id = $2 ORDER BY employee_id
            """, [.int(F.tenant), .int(F.run)]).map { try $0.string(at: 0) }
    }

    static func revisions(_ c: PostgresConnection) throws -> [Int32] {
        try c.query("SELECT revision FROM payrun.payslips WHERE tenant_id = $1 AND run_id = $2 ORDER BY employee_id",
                    [.int(F.tenant), .int(F.run)]).map { try $0.int32(at: 0) }
    }

    /// Loads and computes the fixture's chunk (both employees) in the caller's transaction.
    static func computed(_ c: PostgresConnection) throws -> (PayrollRun, [ComputedPayslip]) {
        let run = try F.run(c)
        let chunk = try ChunkLoader.load(run: run, selection: .range(from: F.hourly, to: F.monthly), on: c)
        return (run, ChunkProcessor.compute(chunk, calculate: ChunkProcessor.serial))
    }

    @Test("the direct COPY of a first calculation and the upsert replacement store identical payslips; the replacement bumps revision")
    func directAndReplacementStoreTheSameRows() throws {
        let c = try F.migrated("fast_direct_vs_replace")
        try F.seed(c)
        let first = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            let (run, payslips) = try Self.computed(c)
            return try PayslipWriter.writeReportingPath(payslips, run: run, on: c)
        }
        #expect(first.rows == 2 && first.path == .direct)
        let direct = try Self.storedRows(c)
        #expect(direct.count == 2)
        #expect(try Self.revisions(c) == [1, 1])
        let second = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            let (run, payslips) = try Self.computed(c)
            return try PayslipWriter.writeReportingPath(payslips, run: run, on: c)
        }
        #expect(second.rows == 2 && second.path == .replacement)
        #expect(try Self.storedRows(c) == direct)
        #expect(try Self.revisions(c) == [2, 2])
        // And both equal what the calculator gives.
        for s in try StoredPayslip.fetch(tenantId: F.tenant, runId: F.run, on: c) {
            #expect(try s.result.get() == (try PayrollCalculator.calculate(F.expectedInput(s.employeeId))))
        }
    }

    @Test("a payslip that exists when the direct COPY runs: the savepoint is rolled back and the replacement path writes every row")
    func directCopyFallsBackOnAnExistingPayslip() throws {
        let c = try F.migrated("fast_fallback")
        try F.seed(c)
        try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            let (run, payslips) = try Self.computed(c)
            // A recalculation got there first for the monthly employee.
            #expect(try PayslipWriter.write([payslips[1]], run: run, on: c) == 1)
            #expect(try PayslipWriter.copyDirect([(run: run, payslips: payslips)], on: c) == false)
            // The transaction is still usable; the replacement path writes both.
            let written = try PayslipWriter.writeReportingPath(payslips, run: run, on: c)
            #expect(written.rows == 2 && written.path == .replacement)
        }
        #expect(try Self.revisions(c) == [1, 2])
        #expect(try Self.storedRows(c).count == 2)
    }

    @Test("a rerun after a replan replaces every payslip, records the new run version and bumps revision")
    func rerunAfterReplanReplaces() throws {
        let c = try F.migrated("fast_replan")
        try F.seed(c)
        func runChunks(version: Int32) throws -> [ChunkProcessor.Outcome] {
            let chunks = try c.query("""
                SELECT chunk_no, employee_id_from, employee_id_to FROM payrun.run_chunks
                 WHERE tenant_id = $1 AND run_id = $2 ORDER BY chunk_no
                """, [.int(F.tenant), .int(F.run)]).map { (try $0.int32(at: 0), try $0.int64(at: 1), try $0.int64(at: 2)) }
            return try chunks.map { chunk in
                try c.transaction { c in
                    try TenantScope.set(F.tenant, on: c)
                    return try ChunkProcessor.process(tenantId: F.tenant, runId: F.run, version: version, chunkNo: chunk.0,
                                                      from: chunk.1, to: chunk.2, on: c)
                }
            }
        }
        #expect(try runChunks(version: 1).map(\.finalizedRun) == [true])
        let before = try Self.storedRows(c)
        // Replan as version 2.
        try c.execute("UPDATE payrun.payroll_runs SET version = 2, status = 'planned' WHERE tenant_id = $1 AND id = $2",
                      [.int(F.tenant), .int(F.run)])
        let planned = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            return try RunPlanner.plan(tenantId: F.tenant, runId: F.run, on: c)
        }
        #expect(planned == .planned(chunks: 1, employees: 2))
        let outcomes = try runChunks(version: 2)
        #expect(outcomes.map(\.finalizedRun) == [true])
        #expect(try Self.revisions(c) == [2, 2])
        let after = try Self.storedRows(c)
        #expect(after == before.map { $0.replacingFirstRunVersion() })
        let run = try F.run(c)
        #expect(run.status == .calculated && run.version == 2 && run.chunksDone == 1 && run.employeesDone == 2)
    }

    @Test("two chunks of one run progress side by side: a chunk writing its payslips does not block another from storing and completing")
    func chunksOfOneRunDoNotSerialize() throws {
        let url = try StoreTestDatabase.createEmpty("fast_parallel")
        let c1 = try PostgresConnection(url: url)
        try Migrator().migrate(c1)
        try F.seed(c1)
        try c1.execute("DELETE FROM payrun.run_chunks")
        try c1.execute("""
            INSERT INTO payrun.run_chunks (tenant_id, run_id, chunk_no, employee_id_from, employee_id_to, employees_planned)
            VALUES ($1, $2, 0, $3, $3, 1), ($1, $2, 1, $4, $4, 1)
            """, [.int(F.tenant), .int(F.run), .int(F.hourly), .int(F.monthly)])
        try c1.execute("UPDATE payrun.payroll_runs SET chunks_total = 2 WHERE tenant_id = $1 AND id = $2", [.int(F.tenant), .int(F.run)])
        let c2 = try PostgresConnection(url: url)
        try c2.execute("SET statement_timeout = '5s'")

        // Chunk 0: loaded, computed and written, not committed (holds its run-row lock and rows).
        try c1.execute("BEGIN")
        try TenantScope.set(F.tenant, on: c1)
        guard let run = try PayrollRun.fetch(tenantId: F.tenant, runId: F.run, keyShare: true, on: c1) else {
            Issue.record("run"); return
        }
        let chunk0 = try ChunkLoader.load(run: run, selection: .range(from: F.hourly, to: F.hourly), on: c1)
        try PayslipWriter.write(ChunkProcessor.compute(chunk0, calculate: ChunkProcessor.serial), run: run,
                                on: c1)
        // Chunk 1, on another connection, stores and completes meanwhile (a lock wait would hit the timeout).
        let second = try c2.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            return try ChunkProcessor.process(tenantId: F.tenant, runId: F.run, version: 1, chunkNo: 1,
                                              from: F.monthly, to: F.monthly, on: c)
        }
        #expect(second.employees == 1 && !second.finalizedRun)
        // Chunk 0 completes last, sees chunk 1 committed and finalizes the run with both payslips.
        #expect(try RunFinalizer.completeChunk(tenantId: F.tenant, runId: F.run, chunkNo: 0, on: c1))
        try c1.execute("COMMIT")
        let finished = try F.run(c1)
        let expectedGross = try [F.hourly, F.monthly].map { try PayrollCalculator.calculate(F.expectedInput($0)).gross }.reduce(0, +)
        #expect(finished.status == .calculated && finished.chunksDone == 2 && finished.employeesDone == 2)
        #expect(finished.grossWon == expectedGross)
        #expect(finished.inputDigestHex?.count == 64)
    }

    @Test("explicit breaks decode from the binary tstzmultirange to the minutes the server's extract(epoch)/60 gives")
    func breaksDecodeLikeTheServer() throws {
        let c = try F.migrated("fast_breaks")
        try F.seed(c)
        // Saturday 10-24: two windows, one with bounds off the minute (rounded to the nearest).
        try c.execute("""
            INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at, breaks)
            VALUES ($1, $2, '2026-10-24T10:00:00+09:00', '2026-10-24T19:00:00+09:00',
                    tstzmultirange(tstzrange('2026-10-24T12:00:30+09:00', '2026-10-24T12:30:29.5+09:00'),
                                   tstzrange('2026-10-24T15:00:00+09:00', '2026-10-24T15:15:00+09:00')))
            """, [.int(F.tenant), .int(F.hourly)])
        let server = try c.query("""
            SELECT (extract(epoch FROM lower(r)) / 60)::bigint, (extract(epoch FROM upper(r)) / 60)::bigint
              FROM payrun.shifts s, unnest(s.breaks) AS r
             WHERE s.employee_id = $1 AND s.starts_at = '2026-10-24T10:00:00+09:00' ORDER BY 1
            """, [.int(F.hourly)]).map { BreakWindow(start: KoreaMinute(utcMinutes: try $0.int64(at: 0)), end: KoreaMinute(utcMinutes: try $0.int64(at: 1))) }
        #expect(server.count == 2)
        let chunk = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            return try ChunkLoader.load(run: try F.run(c), selection: .one(F.hourly), on: c)
        }
        let saturday = KoreaMinute(date: LocalDate(year: 2026, month: 10, day: 24)!, minuteOfDay: 600)
        let shift = try chunk.employees.first?.input.get().shifts.first { $0.start == saturday }
        #expect(shift?.breaks == server)
        #expect(chunk.shiftsLoaded == F.expectedInput(F.hourly).shifts.count + 1)
    }

    @Test("BreakRanges: bounds rounded to the nearest minute, unbounded or malformed windows kept as nil (the shift's error)")
    func breakRangesDecoding() {
        func bytes(_ ranges: [(flags: UInt8, lower: Int64?, upper: Int64?)]) -> [UInt8] {
            func be<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
            var out = be(Int32(ranges.count))
            for r in ranges {
                var range: [UInt8] = [r.flags]
                if let l = r.lower { range += be(Int32(8)) + be(l) }
                if let u = r.upper { range += be(Int32(8)) + be(u) }
                out += be(Int32(range.count)) + range
            }
            return out
        }
        let minute: Int64 = 60_000_000
        // 2000-01-01 00:00 UTC = 15,778,080 minutes since 1970.
        let epoch2000Minutes: Int64 = 946_684_800 / 60
        let decoded = bytes([(0x02, 10 * minute + 30_000_000, 20 * minute + 29_999_999), (0x02 | 0x08, nil, 5 * minute)])
            .withUnsafeBytes { BreakRanges(multirange: $0) }
        #expect(decoded.windows == [BreakRanges.Window(startMinutes: epoch2000Minutes + 11, endMinutes: epoch2000Minutes + 20), nil])
        // 1999-12-31 23:59:30 UTC: epoch/60 = E - 0.5, rounded away from zero to E (as numeric → bigint).
        #expect(BreakRanges.roundedMinutes(-30_000_000) == epoch2000Minutes)
        #expect(BreakRanges.roundedMinutes(-30_000_001) == epoch2000Minutes - 1)
        #expect(BreakRanges.roundedMinutes(Int64.max) == nil)
        let truncated = Array(bytes([(0x02, 0, minute)]).dropLast(3))
        #expect(truncated.withUnsafeBytes { BreakRanges(multirange: $0) }.windows == [nil])
        #expect([UInt8]().withUnsafeBytes { BreakRanges(multirange: $0) }.windows == [nil])
        let empty: [UInt8] = [0, 0, 0, 0]
        #expect(empty.withUnsafeBytes { BreakRanges(multirange: $0) }.windows.isEmpty)
    }
}

extension MonthEndFastPathTests {
    @Test("child rows are read by one id range when the chunk's employees fill it, by range and id list when they interleave with others")
    func childRowConditionForms() {
        #expect(ChunkLoader.childRowCondition(employeeIds: []) == "false")
        #expect(ChunkLoader.childRowCondition(employeeIds: [42]) == "x.employee_id = 42")
        #expect(ChunkLoader.childRowCondition(employeeIds: Array(1001...1999)) == "x.employee_id BETWEEN 1001 AND 1999")
        // 3 of 5 ids in the range: still dense enough for the range alone.
        #expect(ChunkLoader.childRowCondition(employeeIds: [10, 11, 14]) == "x.employee_id BETWEEN 10 AND 14")
        // Every other workplace's employee in between (2 of 6 ids): the ids are listed too.
        #expect(ChunkLoader.childRowCondition(employeeIds: [10, 15]) == "x.employee_id BETWEEN 10 AND 15 AND x.employee_id = ANY('{10,15}'::bigint[])")
        #expect(ChunkLoader.childRowCondition(employeeIds: [Int64.min + 1, Int64.max]).contains("= ANY("))
    }

    @Test("SHA256 matches hashlib at every padding boundary, for contiguous and other collections")
    func sha256BlockBoundaries() {
        let expected: [Int: String] = [
            55: "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b",
            56: "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27",
            63: "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055",
            64: "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241",
            65: "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e",
            119: "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e",
            120: "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5",
            1000: "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371",
        ]
        for (count, hex) in expected {
            let bytes = (0..<count).map { UInt8(($0 * 7 + 3) % 256) }
            #expect(SHA256.hexDigest(bytes) == hex, "\(count) bytes")
            #expect(SHA256.hexDigest(bytes.lazy.map { $0 }) == hex, "\(count) bytes, non-contiguous")
            #expect(SHA256.hexDigest(bytes[...]) == hex, "\(count) bytes, slice")
        }
    }
}

private extension String {
    /// The row text of `storedRows` with run_version 1 → 2 (the 4th field).
    func replacingFirstRunVersion() -> String {
        var fields = split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        if fields.count > 3, fields[3] == "1" { fields[3] = "2" }
        return fields.joined(separator: "|")
    }
}
