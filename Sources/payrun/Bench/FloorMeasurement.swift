import Foundation
import PayrollRules
import PayrollStore
import PostgresClient

/// Step 2 of `payrun bench`: the physical floor of the month-end on the same data — the chunks
/// payrun planned, grouped as its chunk jobs ran them (the parts of a packed job are one floor
/// chunk), on the same number of connections in parallel, each chunk in one transaction:
/// COPY its shifts out (the columns, window and employee-id condition `ChunkLoader` uses, decoded
/// by PostgresClient into structs; the explicit breaks kept as their binary multirange bytes) and COPY as many payslip rows in (the rows payrun wrote for
/// that chunk, read back beforehand, untimed) into the scratch table
/// `payrun_bench.floor_payslips (LIKE payrun.payslips INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING COMPRESSION)`,
/// then COMMIT. No computation, no bookkeeping. To bound memory the chunks go in
/// batches of about `batchEmployees` employees: the read-back of a batch is untimed, its parallel
/// COPYs are timed, and the floor is the sum of the batches' wall times.
struct FloorMeasurement {
    var wallSeconds: Double
    var chunks: Int
    var shiftsOut: Int
    var payslipsIn: Int

    struct ShiftRecord: Sendable {
        var employeeId: Int64, startsAt: Int64, endsAt: Int64, breakMinutes: Int32?, breaks: [UInt8]?
    }

    struct PayslipRecord: Sendable {
        var keys: (tenant: Int64, run: Int64, employee: Int64)
        var version: Int32
        var ruleSet: String?
        var digest: [UInt8]?
        var minutes: [Int32?]
        var money: [Int64?]
        var earnings: [UInt8]?
        var deductions: [UInt8]?
        var warnings: [UInt8]
        var error: [UInt8]?
    }

    struct Chunk: Sendable {
        var tenantId: Int64
        var employeeIds: [Int64]
        var payslips: [PayslipRecord]
    }

    /// The columns payrun writes (the floor moves the same ones).
    static let payslipColumns = PayslipWriter.payslipColumns

    /// The shifts the floor COPYs out: those starting in the loader's window around the period.
    static func shiftWindow(periodStart: LocalDate, periodEnd: LocalDate) -> String {
        let windowStart = periodStart.adding(days: -CalcLimits.daysAroundPeriodMax)
        let windowEnd = periodEnd.adding(days: CalcLimits.daysAroundPeriodMax + 1)
        return "x.starts_at >= '\(windowStart) 00:00+09'::timestamptz AND x.starts_at < '\(windowEnd) 00:00+09'::timestamptz"
    }

    /// One floor measurement on `team`'s connections (kept by the caller between measurements, as
    /// the month-end's workers are: `BenchWorkers`), or on new ones closed afterwards when nil.
    static func run(url: String, threads: Int, periodStart: LocalDate, periodEnd: LocalDate, team: FloorTeam? = nil,
                    batchEmployees: Int = 100_000,
                    progress: TerminalProgress, log: (String) -> Void = { _ in }) throws -> FloorMeasurement {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try connection.executeScript("""
            CREATE SCHEMA IF NOT EXISTS payrun_bench;
            DROP TABLE IF EXISTS payrun_bench.floor_payslips;
            CREATE TABLE payrun_bench.floor_payslips (LIKE payrun.payslips INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING COMPRESSION);
            ALTER TABLE payrun_bench.floor_payslips SET (autovacuum_enabled = false, toast.autovacuum_enabled = false);
            """)
        // The chunks as payrun's jobs ran them: the parts of one packed job are one floor chunk,
        // one transaction; a chunk of a single-part job alone.
        let plan = try MonthEndJobs.read(on: connection)
        let owned = team == nil
        let team = team ?? FloorTeam(url: url, threads: threads,
                                     shiftWindow: shiftWindow(periodStart: periodStart, periodEnd: periodEnd))
        defer { if owned { team.finish() } }
        var wall = 0.0, shiftsOut = 0, payslipsIn = 0
        var index = 0
        while index < plan.count {
            // Untimed: read back the payslips payrun wrote for the next batch of chunks.
            var batch: [Chunk] = []
            var employees = 0
            while index < plan.count && (batch.isEmpty || employees + plan[index].reduce(0, { $0 + $1.employees }) <= batchEmployees) {
                var rows: [PayslipRecord] = []
                for c in plan[index] {
                    try connection.copyOut("""
                        COPY (SELECT \(payslipColumns) FROM payrun.payslips
                               WHERE tenant_id = \(c.tenant) AND run_id = \(c.run) AND employee_id BETWEEN \(c.from) AND \(c.to)
                               ORDER BY employee_id) TO STDOUT (FORMAT binary)
                        """) { r in
                        rows.append(PayslipRecord(
                            keys: (try r.int64(), try r.int64(), try r.int64()), version: try r.int32(), ruleSet: try r.optionalText(),
                            digest: try r.optional { try $0.bytea() }, minutes: try (0..<9).map { _ in try r.optionalInt32() },
                            money: try (0..<5).map { _ in try r.optionalInt64() },
                            earnings: try r.optional { try $0.bytea() }, deductions: try r.optional { try $0.bytea() },
                            warnings: try r.bytea(), error: try r.optional { try $0.bytea() }))
                    }
                    employees += c.employees
                }
                rows.sort { $0.keys.employee < $1.keys.employee }
                batch.append(Chunk(tenantId: plan[index][0].tenant, employeeIds: rows.map(\.keys.employee), payslips: rows))
                index += 1
            }
            progress.update("floor: chunk \(index)/\(plan.count)")
            // Lines of their own around the timed part, so that per-line CPU accounting
            // (`benchmarks/phase-cpu.py`) can tell the floor's COPYs from its untimed read-back.
            log("floor: timing \(batch.count) chunks…")
            let result = try team.runBatch(batch)
            log(String(format: "floor: %d chunks in %.2f s; reading back the next payslips…", batch.count, result.seconds))
            wall += result.seconds
            shiftsOut += result.shifts
            payslipsIn += result.payslips
        }
        progress.finish()
        return FloorMeasurement(wallSeconds: wall, chunks: plan.count, shiftsOut: shiftsOut, payslipsIn: payslipsIn)
    }
}

/// N threads, each with its own connection, that run batches of floor chunks when told to.
final class FloorTeam: @unchecked Sendable {
    private let condition = NSCondition()
    private var batch: [FloorMeasurement.Chunk] = []
    private var next = 0
    private var generation = 0
    private var busy = 0
    private var finished = false
    private var shifts = 0
    private var payslips = 0
    private var failure: String?
    private let threads: Int
    private var ready = 0

    init(url: String, threads: Int, shiftWindow: String) {
        self.threads = threads
        for index in 0..<threads {
            let thread = Thread { [self] in self.loop(url: url, shiftWindow: shiftWindow) }
            thread.name = "payrun-bench-floor-\(index)"
            thread.start()
        }
        condition.lock()
        while ready < threads { condition.wait() }
        condition.unlock()
    }

    /// Runs every chunk of `chunks` on the threads; returns the wall time and the rows moved.
    func runBatch(_ chunks: [FloorMeasurement.Chunk]) throws -> (seconds: Double, shifts: Int, payslips: Int) {
        condition.lock()
        if let failure { condition.unlock(); throw CommandFailure("floor: \(failure)") }
        batch = chunks
        next = 0
        shifts = 0
        payslips = 0
        busy = threads
        generation += 1
        let started = ContinuousClock.now
        condition.broadcast()
        while busy > 0 { condition.wait() }
        let elapsed = seconds(started.duration(to: .now))
        // Not kept until the next batch: a team kept between floors (`payrun bench` without
        // --cold) held the last batch's payslip rows (≈ 170 MB at 100k) through the next
        // month-end, whose peak RSS then read 270 MiB instead of 72.
        batch = []
        defer { condition.unlock() }
        if let failure { throw CommandFailure("floor: \(failure)") }
        return (elapsed, shifts, payslips)
    }

    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop(url: String, shiftWindow: String) {
        let connection: PostgresConnection
        do { connection = try PostgresConnection(url: url) } catch {
            condition.lock(); failure = "\(error)"; ready += 1; condition.broadcast(); condition.unlock()
            return
        }
        defer { connection.close() }
        condition.lock()
        ready += 1
        condition.broadcast()
        var seen = 0
        while true {
            while !finished && generation == seen { condition.wait() }
            if finished { condition.unlock(); return }
            seen = generation
            var myShifts = 0, myPayslips = 0
            while next < batch.count && failure == nil {
                let chunk = batch[next]
                next += 1
                condition.unlock()
                do {
                    let moved = try Self.process(chunk, on: connection, shiftWindow: shiftWindow)
                    myShifts += moved.shifts
                    myPayslips += moved.payslips
                    condition.lock()
                } catch {
                    condition.lock()
                    failure = "\(error)"
                }
            }
            shifts += myShifts
            payslips += myPayslips
            busy -= 1
            condition.broadcast()
        }
    }

    /// One chunk in one transaction: COPY the shifts out, COPY the payslip rows in, COMMIT.
    static func process(_ chunk: FloorMeasurement.Chunk, on connection: PostgresConnection,
                        shiftWindow: String) throws -> (shifts: Int, payslips: Int) {
        guard let first = chunk.employeeIds.first, let last = chunk.employeeIds.last else { return (0, 0) }
        // The loader's condition (ChunkLoader.childRowCondition): the id range, plus the id list when it is sparse.
        var condition = "x.employee_id BETWEEN \(first) AND \(last)"
        if last - first >= Int64(chunk.employeeIds.count) * 2 {
            condition += " AND x.employee_id = ANY('{\(chunk.employeeIds.map(String.init).joined(separator: ","))}'::bigint[])"
        }
        return try connection.transaction { c in
            var shifts: [FloorMeasurement.ShiftRecord] = []
            try c.copyOut("""
                COPY (SELECT x.employee_id, x.starts_at, x.ends_at, x.break_minutes, x.breaks
                      FROM payrun.shifts x
                      WHERE x.tenant_id = \(chunk.tenantId) AND \(condition) AND \(shiftWindow)
                     ) TO STDOUT (FORMAT binary)
                """) { r in
                shifts.append(FloorMeasurement.ShiftRecord(
                    employeeId: try r.int64(), startsAt: try r.timestamptz(), endsAt: try r.timestamptz(),
                    breakMinutes: try r.optionalInt32(),
                    breaks: try r.withTextBytes { (bytes) throws(PostgresError) -> [UInt8]? in bytes.map { Array($0) } }))
            }
            try c.copyIn("COPY payrun_bench.floor_payslips (\(FloorMeasurement.payslipColumns)) FROM STDIN (FORMAT binary)") { writer in
                for p in chunk.payslips {
                    try writer.row { w in
                        w.int64(p.keys.tenant)
                        w.int64(p.keys.run)
                        w.int64(p.keys.employee)
                        w.int32(p.version)
                        w.text(p.ruleSet)
                        if let d = p.digest { w.bytea(d) } else { w.null() }
                        for m in p.minutes { w.int32(m) }
                        for m in p.money { w.int64(m) }
                        if let e = p.earnings { w.bytea(e) } else { w.null() }
                        if let d = p.deductions { w.bytea(d) } else { w.null() }
                        w.bytea(p.warnings)
                        if let e = p.error { w.bytea(e) } else { w.null() }
                    }
                }
            }
            return (shifts.count, chunk.payslips.count)
        }
    }
}
