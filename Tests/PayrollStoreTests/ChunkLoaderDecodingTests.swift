import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// The loader's decoding paths that avoid per-row allocations: enum-like text columns read from
/// their bytes (`StoredKeyword`), child rows kept in one flat array per table (`GroupedRows`), and
/// the break windows of a chunk in one array. Same inputs and the same errors as before.
@Suite("ChunkLoader decoding")
struct ChunkLoaderDecodingTests {
    typealias F = PayrollDataFixture

    static func decode<V>(_ table: KeywordTable<V>, _ bytes: [UInt8]) -> StoredKeyword<V> {
        bytes.withUnsafeBytes { table.decode($0) }
    }

    @Test("keyword tables: every case decodes from its bytes; other text is kept (invalid UTF-8 repaired as String(decoding:))")
    func keywordTables() {
        for value in WageType.allCases {
            guard case .known(let decoded) = Self.decode(StoredKeywords.wageType, Array(value.rawValue.utf8)) else {
                Issue.record("\(value) not decoded"); continue
            }
            #expect(decoded == value)
        }
        for value in TaxMode.allCases {
            guard case .known(let decoded) = Self.decode(StoredKeywords.tax, Array(value.rawValue.utf8)) else {
                Issue.record("\(value) not decoded"); continue
            }
            #expect(decoded == value)
        }
        for value in AbsenceKind.allCases {
            guard case .known(let decoded) = Self.decode(StoredKeywords.absenceKind, Array(value.rawValue.utf8)) else {
                Issue.record("\(value) not decoded"); continue
            }
            #expect(decoded == value)
        }
        for day in Weekday.allCases {
            guard case .known(let decoded) = Self.decode(StoredKeywords.weekday, Array(day.key.utf8)) else {
                Issue.record("\(day) not decoded"); continue
            }
            #expect(decoded == day)
        }
        for (text, expected) in [("statutory", AllowanceSwitch.statutory), ("always", .always), ("never", .never)] {
            guard case .known(let decoded) = Self.decode(StoredKeywords.allowance, Array(text.utf8)) else {
                Issue.record("\(text) not decoded"); continue
            }
            #expect(decoded == expected)
        }
        // Prefixes, longer texts, other case and the empty text are not keywords.
        for text in ["hour", "hourlyy", "Hourly", "", "sick unpaid"] {
            guard case .unknown(let kept) = Self.decode(StoredKeywords.wageType, Array(text.utf8)) else {
                Issue.record("'\(text)' decoded as a keyword"); continue
            }
            #expect(kept == text)
        }
        let invalid: [UInt8] = [0x6D, 0xFF, 0x6E]
        guard case .unknown(let repaired) = Self.decode(StoredKeywords.weekday, invalid) else {
            Issue.record("invalid UTF-8 decoded as a keyword"); return
        }
        #expect(repaired == String(decoding: invalid, as: UTF8.self))
    }

    @Test("a keyword table accepts exactly what its parse function accepts, also text equal only as a String")
    func keywordTableFallsBackToParse() {
        // U+212A KELVIN SIGN is canonically equivalent to "K": equal as Strings, different bytes.
        let table = KeywordTable<Int>([("K", 1)], parse: { $0 == "K" ? 1 : nil })
        guard case .known(let value) = Self.decode(table, Array("\u{212A}".utf8)) else {
            Issue.record("canonically equivalent text not accepted"); return
        }
        #expect(value == 1)
        guard case .unknown = Self.decode(table, Array("k".utf8)) else { Issue.record("'k' accepted"); return }
    }

    @Test("grouped rows: groups in order, arrival order kept within a group, also when the rows arrive interleaved")
    func groupedRows() {
        var inOrder = GroupedRows<String>.Builder()
        for (row, group) in [("a0", 0), ("a1", 0), ("c0", 2), ("c1", 2), ("c2", 2)] { inOrder.append(row, group: group) }
        let grouped = inOrder.build(groupCount: 4)
        #expect(grouped.groupCount == 4)
        #expect(Array(grouped[0]) == ["a0", "a1"] && grouped[1].isEmpty && Array(grouped[2]) == ["c0", "c1", "c2"] && grouped[3].isEmpty)

        var interleaved = GroupedRows<String>.Builder()
        for (row, group) in [("c0", 2), ("a0", 0), ("c1", 2), ("b0", 1), ("a1", 0), ("c2", 2)] { interleaved.append(row, group: group) }
        var regrouped = interleaved.build(groupCount: 3)
        #expect(Array(regrouped[0]) == ["a0", "a1"] && Array(regrouped[1]) == ["b0"] && Array(regrouped[2]) == ["c0", "c1", "c2"])
        regrouped.sortEachGroup(by: >)
        #expect(Array(regrouped[0]) == ["a1", "a0"] && Array(regrouped[1]) == ["b0"] && Array(regrouped[2]) == ["c2", "c1", "c0"])
        #expect(GroupedRows<Int>.Builder().build(groupCount: 0).groupCount == 0)
    }

    @Test("contracts' schedule arrays: the same schedule shares one array, every schedule reads back as given (also when slots collide)")
    func scheduleArrays() {
        var arrays = ChunkLoader.ScheduleArrays()
        var schedules: [(Int32, Int32, Int32, Int32, Int32, Int32, Int32)] = []
        for _ in 0..<2_000 {
            func m() -> Int32 { Int32.random(in: 0...4) * 120 }
            schedules.append((m(), m(), m(), m(), m(), m(), m()))
        }
        for s in schedules + schedules.reversed() {
            #expect(arrays.array(s) == [s.0, s.1, s.2, s.3, s.4, s.5, s.6])
        }
        let first = arrays.array((480, 480, 480, 480, 480, 0, 0))
        let again = arrays.array((480, 480, 480, 480, 480, 0, 0))
        #expect(first == again)
        #expect(first.withUnsafeBufferPointer { $0.baseAddress } == again.withUnsafeBufferPointer { $0.baseAddress })
    }

    @Test("break windows of a chunk in one array: each shift's range; a malformed value is one nil window")
    func breakWindowsAppend() {
        func multirange(_ bounds: [(Int64, Int64)]) -> [UInt8] {
            var bytes: [UInt8] = withUnsafeBytes(of: Int32(bounds.count).bigEndian) { Array($0) }
            for (lower, upper) in bounds {
                bytes += withUnsafeBytes(of: Int32(1 + 12 + 12).bigEndian) { Array($0) } + [0x02]  // [lower, upper)
                for bound in [lower, upper] {
                    bytes += withUnsafeBytes(of: Int32(8).bigEndian) { Array($0) } + withUnsafeBytes(of: bound.bigEndian) { Array($0) }
                }
            }
            return bytes
        }
        var windows: [BreakRanges.Window?] = []
        let minute: Int64 = 60_000_000
        let first = multirange([(0, 30 * minute), (60 * minute, 90 * minute)]).withUnsafeBytes {
            BreakRanges.decode(multirange: $0, appendingTo: &windows)
        }
        let truncated = Array(multirange([(0, minute)]).dropLast(3))
        let second = truncated.withUnsafeBytes { BreakRanges.decode(multirange: $0, appendingTo: &windows) }
        let third = multirange([]).withUnsafeBytes { BreakRanges.decode(multirange: $0, appendingTo: &windows) }
        #expect(first == 0..<2 && second == 2..<3 && third == 3..<3)
        let epoch2000Minutes: Int64 = 946_684_800 / 60
        #expect(windows == [BreakRanges.Window(startMinutes: epoch2000Minutes, endMinutes: epoch2000Minutes + 30),
                            BreakRanges.Window(startMinutes: epoch2000Minutes + 60, endMinutes: epoch2000Minutes + 90), nil])
        #expect(truncated.withUnsafeBytes { BreakRanges(multirange: $0) }.windows == [nil])
    }

    /// Drops the CHECK constraints of `table` (as a broken import might have bypassed them).
    static func dropChecks(_ table: String, _ c: PostgresConnection) throws {
        for row in try c.query("SELECT conname::text FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c'",
                               [.text("payrun.\(table)")]) {
            try c.execute("ALTER TABLE payrun.\(table) DROP CONSTRAINT \(try row.string(at: 0))")
        }
    }

    static func loadBoth(_ c: PostgresConnection) throws -> (load: LoadedChunk, parts: LoadedChunk?) {
        try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            let run = try F.run(c)
            let one = try ChunkLoader.load(run: run, selection: .range(from: F.hourly, to: F.monthly), on: c)
            let parts = try ChunkLoader.loadParts([ChunkLoader.PartSelection(run: run, from: F.hourly, to: F.monthly)], on: c)
            return (one, parts.first)
        }
    }

    @Test("an unknown text in the contract in force fails only its employee, naming the field; one in a contract not in force is ignored")
    func unknownContractKeyword() throws {
        let c = try F.migrated("loader_keywords")
        try F.seed(c)
        try Self.dropChecks("contracts", c)
        // The hourly employee's old contract (until 10-15, not in force on the reference date).
        try c.execute("""
            UPDATE payrun.contracts SET wage_type = 'weekly', tax = 'flat', weekly_holiday = 'someday', night_allowance = '항상'
             WHERE tenant_id = $1 AND employee_id = $2 AND effective_to_exclusive IS NOT NULL
            """, [.int(F.tenant), .int(F.hourly)])
        try c.execute("UPDATE payrun.contracts SET weekly_allowance = 'sometimes' WHERE tenant_id = $1 AND employee_id = $2",
                      [.int(F.tenant), .int(F.monthly)])
        let (one, parts) = try Self.loadBoth(c)
        for chunk in [one, parts] {
            guard let chunk else { Issue.record("no part loaded"); continue }
            #expect(chunk.employees.map(\.employeeId) == [F.hourly, F.monthly])
            let hourly = chunk.employees[0], monthly = chunk.employees[1]
            #expect(hourly.inputDigest == InputDigest.digest(try F.expectedInput(F.hourly).validated()))
            #expect(try PayrollCalculator.calculate(try hourly.input.get()) == (try PayrollCalculator.calculate(F.expectedInput(F.hourly))))
            #expect(monthly.input.failure == PayrollError(.invalidValue, "unknown value 'sometimes'", field: "contract.weeklyAllowance"))
            #expect(monthly.inputDigest == nil && monthly.employeeNumber == "M-1")
        }

        // Several unknown texts: the first in the contract's field order is reported; weekdays by their own message.
        try c.execute("UPDATE payrun.contracts SET weekly_allowance = 'statutory', week_start = 'funday', tax = 'flat' WHERE tenant_id = $1 AND employee_id = $2",
                      [.int(F.tenant), .int(F.monthly)])
        #expect(try Self.loadBoth(c).load.employees[1].input.failure
                == PayrollError(.invalidValue, "unknown weekday 'funday'", field: "contract.weekStart"))
        try c.execute("UPDATE payrun.contracts SET week_start = NULL WHERE tenant_id = $1 AND employee_id = $2", [.int(F.tenant), .int(F.monthly)])
        #expect(try Self.loadBoth(c).load.employees[1].input.failure == PayrollError(.invalidValue, "unknown value 'flat'", field: "contract.tax"))
    }

    @Test("an unknown absence kind fails only its employee, naming the absence record")
    func unknownAbsenceKind() throws {
        let c = try F.migrated("loader_absence_kind")
        try F.seed(c)
        try Self.dropChecks("absences", c)
        let absenceId = try c.queryOne("UPDATE payrun.absences SET kind = 'vacation' WHERE tenant_id = $1 RETURNING id",
                                       [.int(F.tenant)])?.int64(at: 0) ?? -1
        let (one, parts) = try Self.loadBoth(c)
        for chunk in [one, parts] {
            guard let chunk else { Issue.record("no part loaded"); continue }
            #expect(chunk.employees[0].input.failure
                    == PayrollError(.invalidValue, "unknown absence kind 'vacation'", field: "absences[id=\(absenceId)].kind"))
            #expect(chunk.employees[1].inputDigest == InputDigest.digest(try F.expectedInput(F.monthly).validated()))
        }
    }
}

extension Result {
    /// The error, or nil on success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
