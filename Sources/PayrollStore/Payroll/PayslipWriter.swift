import PayrollRules
import PostgresClient

/// Stores computed payslips of one run, in the caller's transaction, so the payslips appear
/// exactly when the caller's job completion commits. Failed employees get a row with `error` and
/// no amounts. Two paths for many payslips, with the same columns and the same stored values:
///
/// - **First calculation** (no payslip of this run exists yet in the employees' id range — the
///   normal month-end chunk — and the writing role is not subject to row-level security, which
///   refuses COPY FROM; see 0012): one binary COPY straight into `payslips` (`revision` 1), inside a
///   savepoint. If a payslip appeared meanwhile (a recalculation committed between the check and
///   the COPY: unique violation), the savepoint is rolled back and the replacement path runs.
/// - **First calculation under row-level security** (the same, by a role subject to it —
///   production workers, plain members of `payrun_worker`): the same COPY as
///   `payrun_payslip_writer` (0022: BYPASSRLS, INSERT on `payslips` only; the insert trigger holds
///   its rows to the transaction's tenant), switched to with `SET LOCAL ROLE` inside the savepoint
///   and back right after. Where that role is missing (migrated without a superuser) or not the
///   session's to use: one plain `INSERT … SELECT * FROM unnest($1::int8[], …)` into `payslips`,
///   the rows sent as one binary array per column, inside a savepoint (the policy's WITH CHECK
///   applies to each row); on a unique violation the savepoint is rolled back and the same arrays
///   are upserted as below. What either stores is exactly the rows sent, as with the owner's COPY.
/// - **Replacement** (reruns, replans, recalculation): the same arrays, one `INSERT … SELECT …
///   ON CONFLICT DO UPDATE` into `payslips` (a rerun replaces a payslip and bumps its `revision`,
///   never duplicates it).
///
/// The arrays are the COPY's binary fields, a column at a time (`columnArrays`); until session 17
/// these two paths staged the rows in a table first (`insert` says why no longer).
///
/// A single payslip is one parameterized upsert (`writeOne`).
public enum PayslipWriter {
    /// The columns every payslip write fills, in COPY order (`encode`).
    public static let payslipColumns = """
        tenant_id, run_id, employee_id, run_version, rule_set, input_digest,
        worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes,
        holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes,
        gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won,
        earnings, deductions, warnings, error
        """

    /// Which path `write` took (for tests and timings).
    public enum Path: Sendable, Hashable {
        /// Nothing to write; one row by a single upsert; the direct COPY (also as
        /// `payrun_payslip_writer`); the plain insert of exactly the rows sent (a first calculation
        /// under row-level security without that role); the upsert.
        case none, single, direct, inserted, replacement

        /// Whether the rows stored are exactly the rows sent (no existing payslip was replaced), so
        /// the caller may sum what it sent instead of reading the rows back.
        public var storedExactlyTheRowsSent: Bool { self == .direct || self == .inserted }
    }

    /// Writes `payslips` for `run`; returns the number of rows written.
    @discardableResult
    public static func write(_ payslips: [ComputedPayslip], run: PayrollRun,
                             on connection: PostgresConnection) throws -> Int {
        try writeReportingPath(payslips, run: run, on: connection).rows
    }

    /// `write`, also saying which path it took.
    public static func writeReportingPath(_ payslips: [ComputedPayslip], run: PayrollRun,
                                          on connection: PostgresConnection) throws -> (rows: Int, path: Path) {
        guard let first = payslips.first else { return (0, .none) }
        if payslips.count == 1 { return (try writeOne(first, run: run, on: connection), .single) }
        return try writeMany([(run: run, payslips: payslips)], on: connection)
    }

    /// A statement that leaves the server process's `malloc` keeping the memory of the insert
    /// trigger's transition table (`payslips_references_on_insert`, 0013/0019) from one chunk
    /// job to the next, run once per session before the first multi-row write
    /// (`reserveCaptureMemory`). Why: PostgreSQL copies every inserted payslip row (≈ 1.6 kB)
    /// into the statement's transition table, in memory blocks of its transaction that double up
    /// to 8 MiB (a 2,000-row chunk: blocks up to 2 MiB). glibc's `malloc` serves the largest of
    /// them with a fresh `mmap` and unmaps it at the transaction's end: its dynamic threshold only
    /// rises to the size of a block already freed, so the largest block of every chunk job is
    /// new memory again, and the kernel zero-fills each of its pages at the first write. perf of a
    /// 100,000-employee month-end: 0.13 of the capture's ≈ 0.18 server CPU-s were these page
    /// faults; one backend COPYing 1,700 payslip rows per transaction took ≈ 1,700 minor faults
    /// per statement into `payslips` against ≈ 870 into the floor's table without triggers
    /// (benchmarks/RESULTS.md, session 10, helper server4). Allocating and freeing one 9 MiB
    /// value once raises the threshold above the largest block PostgreSQL's memory contexts ask
    /// for (8 MiB), so those blocks come from the process heap and stay there between
    /// transactions (glibc trims the heap only beyond twice the threshold). No effect on results;
    /// with another C library it is one 9 MiB string built and dropped per session. The string is
    /// 2,304 copies of a 4 KiB one and only its byte length is asked for: ≈ 16 ms of one backend's
    /// CPU, nearly all the first writes to its pages (`repeat('x', 9437184)` copies 9,437,184 single
    /// bytes, and `length` counts its characters: ≈ 85 ms, which ate what the reservation saves).
    static let reserveCaptureMemorySQL = "SELECT octet_length(repeat(repeat('x', 4096), 2304))"

    /// Runs `reserveCaptureMemorySQL` once per session of `connection`.
    static func reserveCaptureMemory(on connection: PostgresConnection) throws {
        try connection.executeOncePerSession(key: "payslips.reserveCaptureMemory", reserveCaptureMemorySQL)
    }

    /// The direct COPY's rows of `payslips` (what `copyDirect` sends for them), appended to
    /// `buffer`: for tests and the `load-encode --rows` benchmark.
    public static func encodeRows(_ payslips: [ComputedPayslip], run: PayrollRun, into buffer: BinaryCopyRowBuffer) {
        // By index, in place (`for p in payslips` copied each payslip: its arrays and texts retained and released).
        payslips.withUnsafeBufferPointer { payslips in
            for j in payslips.indices { buffer.row { r in encode(payslips.baseAddress.unsafelyUnwrapped + j, run: run, into: &r) } }
        }
    }

    /// One payslip's `payslipColumns`, in order, in binary COPY format, read where it lies: the
    /// row loops pass each payslip's address in its array (the element passed by value from inside
    /// the row closure was copied, every array and text of the payslip retained and released).
    static func encode(_ p: UnsafePointer<ComputedPayslip>, run: PayrollRun, into row: inout BinaryCopyRowEncoder) {
        // Fields written through a local copy of the encoder, stored back on return: through
        // `inout`, every byte stored into the row could alias the encoder, whose buffer address
        // and length were then reloaded and stored around each field.
        var r = row
        defer { row = r }
        r.int64(run.tenantId)
        r.int64(run.id)
        r.int64(p.pointee.employeeId)
        r.int32(run.version)
        switch p.pointee.result {
        case .success(let slip):
            r.text(slip.ruleSet)
            if let d = p.pointee.inputDigest { r.bytea(d) } else { r.null() }
            let m = slip.minutes
            // Field by field (array literals here allocated twice per payslip).
            r.int32(Int32(clamping: m.worked))
            r.int32(Int32(clamping: m.regular))
            r.int32(Int32(clamping: m.overtime))
            r.int32(Int32(clamping: m.partTimeExcess))
            r.int32(Int32(clamping: m.night))
            r.int32(Int32(clamping: m.holiday))
            r.int32(Int32(clamping: m.holidayOver8))
            r.int32(Int32(clamping: m.weeklyAllowance))
            r.int32(Int32(clamping: m.paidHoliday))
            r.int64(slip.gross)
            r.int64(slip.nonTaxable)
            r.int64(slip.taxable)
            r.int64(slip.totalDeductions)
            r.int64(slip.net)
            encodeLines(of: slip, into: &r)
            r.null()
        case .failure(let error):
            r.null()
            if let d = p.pointee.inputDigest { r.bytea(d) } else { r.null() }
            for _ in 0..<14 { r.null() }
            r.null()
            r.null()
            r.bytea(jsonb(Array("[]".utf8)))
            r.bytea(jsonb(PayslipJSON.error(error)))
        }
    }

    /// The `earnings`, `deductions` and `warnings` columns of `slip`: the line arrays written in
    /// place in the row (no array of their own, no copy), `json` (0014), whose binary format is
    /// the text; the warnings `jsonb` (version byte, then the text), most often none.
    static func encodeLines(of slip: Payslip, into r: inout BinaryCopyRowEncoder) {
        PayslipLineJSON.earnings(slip.earnings, into: &r)
        PayslipLineJSON.deductions(slip.deductions, into: &r)
        if slip.warnings.isEmpty {
            r.field(byteCount: 3) { bytes in
                bytes[0] = 1
                bytes[1] = UInt8(ascii: "[")
                bytes[2] = UInt8(ascii: "]")
            }
        } else {
            r.bytea(PayslipJSON.warnings(slip.warnings, jsonbVersionByte: true))
        }
    }

    /// One payslip (a recalculation): a single parameterized upsert, skipping the first-calculation
    /// check and the column arrays, which pay off only for many rows. Same columns, same conflict rule.
    static func writeOne(_ p: ComputedPayslip, run: PayrollRun, on connection: PostgresConnection) throws -> Int {
        var values: [PostgresValue] = [.int(run.tenantId), .int(run.id), .int(p.employeeId), .int32(run.version)]
        let digest: PostgresValue = p.inputDigest.map { .bytea($0) } ?? .null
        switch p.result {
        case .success(let slip):
            let m = slip.minutes
            values.append(.text(slip.ruleSet))
            values.append(digest)
            values += [m.worked, m.regular, m.overtime, m.partTimeExcess, m.night, m.holiday, m.holidayOver8,
                       m.weeklyAllowance, m.paidHoliday].map { .int32(Int32(clamping: $0)) }
            values += [slip.gross, slip.nonTaxable, slip.taxable, slip.totalDeductions, slip.net].map { .int($0) }
            values += [PayslipJSON.earnings(slip.earnings), PayslipJSON.deductions(slip.deductions), PayslipJSON.warnings(slip.warnings)]
                .map { .text(String(decoding: $0, as: UTF8.self)) }
            values.append(.null)
        case .failure(let error):
            values += [.null, digest] + Array(repeating: .null, count: 16)
            values += [.text("[]"), .text(String(decoding: PayslipJSON.error(error), as: UTF8.self))]
        }
        // earnings and deductions ($21, $22) are json (0014); warnings and error ($23, $24) jsonb.
        let placeholders = (1...values.count).map { n in
            n >= 23 ? "$\(n)::jsonb" : n >= 21 ? "$\(n)::json" : "$\(n)"
        }.joined(separator: ", ")
        return try connection.executePrepared("""
            INSERT INTO payrun.payslips AS p (\(payslipColumns)) VALUES (\(placeholders))
            \(upsertClause)
            """, values).affectedRowCount ?? 0
    }

    static let upsertClause = """
            ON CONFLICT (tenant_id, run_id, employee_id) DO UPDATE SET
                run_version = EXCLUDED.run_version, revision = p.revision + 1, computed_at = now(),
                rule_set = EXCLUDED.rule_set, input_digest = EXCLUDED.input_digest,
                worked_minutes = EXCLUDED.worked_minutes, regular_minutes = EXCLUDED.regular_minutes,
                overtime_minutes = EXCLUDED.overtime_minutes, part_time_excess_minutes = EXCLUDED.part_time_excess_minutes,
                night_minutes = EXCLUDED.night_minutes, holiday_minutes = EXCLUDED.holiday_minutes,
                holiday_over8_minutes = EXCLUDED.holiday_over8_minutes,
                weekly_allowance_minutes = EXCLUDED.weekly_allowance_minutes,
                paid_holiday_minutes = EXCLUDED.paid_holiday_minutes,
                gross_won = EXCLUDED.gross_won, non_taxable_won = EXCLUDED.non_taxable_won,
                taxable_won = EXCLUDED.taxable_won, total_deductions_won = EXCLUDED.total_deductions_won,
                net_won = EXCLUDED.net_won, earnings = EXCLUDED.earnings, deductions = EXCLUDED.deductions,
                warnings = EXCLUDED.warnings, error = EXCLUDED.error
            """

    /// jsonb's binary format (`warnings`, `error`): version 1, then the text. The line columns
    /// are `json` (0014), whose binary format is the text alone.
    static func jsonb(_ text: [UInt8]) -> [UInt8] { [1] + text }
}
