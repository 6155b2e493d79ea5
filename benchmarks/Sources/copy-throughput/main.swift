// PostgresClient COPY throughput: decoding rows/s from binary `COPY … TO STDOUT` into Swift
// structs, and writing rows/s by binary `COPY … FROM STDIN`, next to `psql \copy` moving the
// same data.
//
//   swift run -c release --package-path benchmarks copy-throughput [--shifts N] [--results N] [--repeat R]
//
// Uses DATABASE_URL if set, otherwise starts (or reuses) the private cluster `<repo>/.pg-bench`
// with `ops/pg start` (durable settings unless PAYRUN_PG_FAST=1 is set) and stops it at the end
// if it started it. Works in a scratch database `payrun_bench_copy`, dropped at the end.
// Data generation is not timed; each measurement is repeated R times, best and median reported.
import Dispatch
import Foundation
import PostgresClient
import Synchronization

var shiftRowCount = 3_000_000
var resultRowCount = 500_000
var repetitions = 3
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--shifts": shiftRowCount = Int(arguments.next() ?? "") ?? shiftRowCount
    case "--results": resultRowCount = Int(arguments.next() ?? "") ?? resultRowCount
    case "--repeat": repetitions = max(1, Int(arguments.next() ?? "") ?? repetitions)
    default:
        print("usage: copy-throughput [--shifts N] [--results N] [--repeat R]")
        exit(2)
    }
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// Runs a program; returns (exit status, stdout). Stdout goes through a temporary file, not a
/// pipe: a server started by `ops/pg start` must not keep our read end waiting for EOF.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
    let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("payrun-bench-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out").path
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try output.close()
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    return (process.terminationStatus, text)
}

// MARK: cluster

let clusterEnvironment = ["PAYRUN_PG_DIR": repositoryRoot + "/.pg-bench"]
var startedCluster = false
let serverURL: String
if let given = ProcessInfo.processInfo.environment["DATABASE_URL"], !given.isEmpty {
    serverURL = given
} else {
    let (wasRunning, _) = try run(repositoryRoot + "/ops/pg", ["status"], environment: clusterEnvironment)
    let (status, output) = try run(repositoryRoot + "/ops/pg", ["start"], environment: clusterEnvironment)
    guard status == 0, let url = output.split(separator: "\n").last else {
        log("ops/pg start failed")
        exit(1)
    }
    serverURL = String(url)
    startedCluster = wasRunning != 0
}

let admin = try PostgresConnection(url: serverURL)
try admin.execute("DROP DATABASE IF EXISTS payrun_bench_copy WITH (FORCE)")
try admin.execute("CREATE DATABASE payrun_bench_copy")
let url = PostgresConnectionString.replacingDatabase(in: serverURL, with: "payrun_bench_copy")
let connection = try PostgresConnection(url: url)

// MARK: measurement helpers

let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    let (whole, fraction) = duration.components
    return Double(whole) + Double(fraction) / 1e18
}

struct Measurement {
    var label: String
    var rows: Int
    var secondsEach: [Double]
    /// CPU seconds (user + system) this process used in each repetition: the client's own cost,
    /// independent of how fast the server (sharing the machine) feeds it.
    var clientCPUSecondsEach: [Double]
    var best: Double { Double(rows) / secondsEach.min()! }
    var median: Double { Double(rows) / secondsEach.sorted()[secondsEach.count / 2] }
    var rowsPerClientCPUSecond: Double { Double(rows) / clientCPUSecondsEach.sorted()[clientCPUSecondsEach.count / 2] }
}

/// User + system CPU seconds used by this process so far.
func processCPUSeconds() -> Double {
    let (user, system) = processCPUSplit()
    return user + system
}

/// (user, system) CPU seconds used by this process so far.
func processCPUSplit() -> (Double, Double) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
}

@MainActor
func measure(_ label: String, rows: Int, before: () throws -> Void = {}, _ body: () throws -> Int) throws -> Measurement {
    var times: [Double] = []
    var cpuTimes: [Double] = []
    for repetition in 1...repetitions {
        try before()
        let (userStart, systemStart) = processCPUSplit()
        let start = clock.now
        let counted = try body()
        let elapsed = seconds(start.duration(to: clock.now))
        let (userEnd, systemEnd) = processCPUSplit()
        let cpu = (userEnd - userStart) + (systemEnd - systemStart)
        precondition(counted == rows, "\(label): expected \(rows) rows, got \(counted)")
        times.append(elapsed)
        cpuTimes.append(max(cpu, 1e-6))
        log("  \(label) #\(repetition): \(String(format: "%.3f", elapsed)) s, \(Int(Double(rows) / elapsed)) rows/s, client CPU \(String(format: "%.3f", cpu)) s (user \(String(format: "%.3f", userEnd - userStart)), system \(String(format: "%.3f", systemEnd - systemStart)))")
    }
    return Measurement(label: label, rows: rows, secondsEach: times, clientCPUSecondsEach: cpuTimes)
}

// MARK: shifts: load, then decode

/// One attendance shift as a worker would hold it after loading a chunk.
struct Shift {
    var tenantID: Int64
    var employeeID: Int64
    var shiftID: Int64
    var workDateDays: Int32
    var startMicroseconds: Int64
    var endMicroseconds: Int64
    var breakMinutes: Int32
    var kind: Int16
    var isHoliday: Bool
    var contractID: Int64?
}

try connection.execute("""
    CREATE TABLE shifts (
        tenant_id int8 NOT NULL, employee_id int8 NOT NULL, shift_id int8 NOT NULL, work_date date NOT NULL,
        start_at timestamptz NOT NULL, end_at timestamptz NOT NULL, break_minutes int4 NOT NULL,
        kind int2 NOT NULL, is_holiday bool NOT NULL, contract_id int8,
        PRIMARY KEY (tenant_id, employee_id, shift_id))
    """)
log("loading \(shiftRowCount) shift rows (binary COPY FROM STDIN, table with a 3-column primary key)")
let loadStart = clock.now
let baseDay: Int32 = 9_770 // 2026-10-01
try connection.copyIn("COPY shifts FROM STDIN (FORMAT binary)") { writer in
    for index in 0..<shiftRowCount {
        let employee = Int64(index / 30)
        let day = baseDay + Int32(index % 30)
        let start = Int64(day) * 86_400_000_000 + Int64(9 + index % 5) * 3_600_000_000
        try writer.row {
            $0.int64(employee % 100)
            $0.int64(employee)
            $0.int64(Int64(index))
            $0.date(daysSince2000: day)
            $0.timestamptz(microsecondsSince2000: start)
            $0.timestamptz(microsecondsSince2000: start + Int64(4 + index % 6) * 3_600_000_000)
            $0.int32(Int32(index % 4) * 15)
            $0.int16(Int16(index % 3))
            $0.bool(index % 7 == 0)
            $0.int64(index % 10 == 0 ? nil : employee * 2)
        }
    }
}
let loadSeconds = seconds(loadStart.duration(to: clock.now))
log("  loaded in \(String(format: "%.2f", loadSeconds)) s (\(Int(Double(shiftRowCount) / loadSeconds)) rows/s)")
try connection.execute("VACUUM ANALYZE shifts")

let selectShifts = "COPY (SELECT tenant_id, employee_id, shift_id, work_date, start_at, end_at, break_minutes, kind, is_holiday, contract_id FROM shifts) TO STDOUT (FORMAT binary)"
var shifts: [Shift] = []
var decodeChecksum: Int64 = 0
log("decoding \(shiftRowCount) shifts from binary COPY TO STDOUT into [Shift]")
let decode = try measure("decode", rows: shiftRowCount, before: {
    shifts = []
    shifts.reserveCapacity(shiftRowCount)
}) {
    try connection.copyOut(selectShifts) { row in
        shifts.append(Shift(
            tenantID: try row.int64(), employeeID: try row.int64(), shiftID: try row.int64(),
            workDateDays: try row.date(), startMicroseconds: try row.timestamptz(), endMicroseconds: try row.timestamptz(),
            breakMinutes: try row.int32(), kind: try row.int16(), isHoliday: try row.bool(),
            contractID: try row.optionalInt64()))
    }
}
decodeChecksum = shifts.reduce(0) { $0 &+ $1.shiftID &+ Int64($1.breakMinutes) &+ ($1.contractID ?? 0) }
shifts = []

// MARK: shifts: decode over parallel streams

/// Rows and checksum decoded by the parallel streams of one repetition.
final class StreamTotals: Sendable {
    let rows = Mutex<Int>(0)
    let checksum = Mutex<Int64>(0)
    let failures = Mutex<[String]>([])
}

/// The same COPY split into `streamCount` disjoint halves of the table by physical position (TID
/// range scans, PostgreSQL ≥ 14: each stream reads only its own pages), each on its own
/// connection and decoded on its own thread into its own `[Shift]`. This is how a reader uses both
/// cores of this machine: one server backend and one decoding thread per stream.
func decodeInParallel(streams streamCount: Int, url: String, pages: Int) -> (rows: Int, checksum: Int64, failures: [String]) {
    let totals = StreamTotals()
    let bounds = (0...streamCount).map { pages * $0 / streamCount }
    DispatchQueue.concurrentPerform(iterations: streamCount) { stream in
        do {
            let connection = try PostgresConnection(url: url)
            defer { connection.close() }
            var range = "ctid >= '(\(bounds[stream]),0)'::tid"
            if stream < streamCount - 1 { range += " AND ctid < '(\(bounds[stream + 1]),0)'::tid" }
            var decoded: [Shift] = []
            decoded.reserveCapacity(pages > 0 ? 3_100_000 / streamCount : 0)
            try connection.copyOut("""
                COPY (SELECT tenant_id, employee_id, shift_id, work_date, start_at, end_at, break_minutes, kind, is_holiday, contract_id
                      FROM shifts WHERE \(range)) TO STDOUT (FORMAT binary)
                """) { row in
                decoded.append(Shift(
                    tenantID: try row.int64(), employeeID: try row.int64(), shiftID: try row.int64(),
                    workDateDays: try row.date(), startMicroseconds: try row.timestamptz(), endMicroseconds: try row.timestamptz(),
                    breakMinutes: try row.int32(), kind: try row.int16(), isHoliday: try row.bool(),
                    contractID: try row.optionalInt64()))
            }
            let sum = decoded.reduce(Int64(0)) { $0 &+ $1.shiftID &+ Int64($1.breakMinutes) &+ ($1.contractID ?? 0) }
            totals.rows.withLock { $0 += decoded.count }
            totals.checksum.withLock { $0 = $0 &+ sum }
        } catch {
            totals.failures.withLock { $0.append("stream \(stream): \(error)") }
        }
    }
    return (totals.rows.withLock { $0 }, totals.checksum.withLock { $0 }, totals.failures.withLock { $0 })
}

let shiftPages = Int(try connection.queryOne("SELECT (pg_relation_size('shifts') / current_setting('block_size')::int)::int8")?.int64(at: 0) ?? 0)
log("decoding \(shiftRowCount) shifts over 2 connections in parallel (TID ranges of \(shiftPages) pages)")
let decodeParallel = try measure("decode2", rows: shiftRowCount) {
    let outcome = decodeInParallel(streams: 2, url: url, pages: shiftPages)
    precondition(outcome.failures.isEmpty, "parallel decode failed: \(outcome.failures)")
    precondition(outcome.checksum == decodeChecksum, "parallel decode checksum \(outcome.checksum) ≠ single stream \(decodeChecksum)")
    return outcome.rows
}

// MARK: results: write

let resultColumns = 15
try connection.execute("""
    CREATE TABLE payslip_staging (employee_id int8 NOT NULL, run_id int8 NOT NULL, gross_won int8 NOT NULL,
        base_won int8 NOT NULL, overtime_won int8 NOT NULL, night_won int8 NOT NULL, holiday_won int8 NOT NULL,
        weekly_allowance_won int8 NOT NULL, pension_won int8 NOT NULL, health_won int8 NOT NULL,
        care_won int8 NOT NULL, employment_won int8 NOT NULL, income_tax_won int8 NOT NULL,
        local_tax_won int8 NOT NULL, net_won int8 NOT NULL)
    """)
let results: [[Int64]] = (0..<resultRowCount).map { index in
    (0..<resultColumns).map { column in Int64(index) * 1_000 + Int64(column) * 37 }
}
log("writing \(resultRowCount) result rows × \(resultColumns) int8 columns by binary COPY FROM STDIN (no index)")
let write = try measure("write", rows: resultRowCount, before: { try connection.execute("TRUNCATE payslip_staging") }) {
    try connection.copyIn("COPY payslip_staging FROM STDIN (FORMAT binary)") { writer in
        for row in results {
            try writer.row { encoder in
                for value in row { encoder.int64(value) }
            }
        }
    }
}

// MARK: psql \copy for comparison

let psql = ["/usr/bin/psql", "/usr/local/bin/psql"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "psql"
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("payrun-bench-results-\(getpid()).bin").path
try run(psql, [url, "-q", "-c", "\\copy payslip_staging TO '\(scratch)' WITH (FORMAT binary)"])
log("psql \\copy of the same data")
let psqlOut = try measure("psql \\copy shifts TO /dev/null (binary)", rows: shiftRowCount) {
    let (status, _) = try run(psql, [url, "-q", "-c", "\\copy (SELECT tenant_id, employee_id, shift_id, work_date, start_at, end_at, break_minutes, kind, is_holiday, contract_id FROM shifts) TO '/dev/null' WITH (FORMAT binary)"])
    precondition(status == 0)
    return shiftRowCount
}
let psqlIn = try measure("psql \\copy results FROM file (binary)", rows: resultRowCount, before: { try connection.execute("TRUNCATE payslip_staging") }) {
    let (status, _) = try run(psql, [url, "-q", "-c", "\\copy payslip_staging FROM '\(scratch)' WITH (FORMAT binary)"])
    precondition(status == 0)
    return resultRowCount
}
try? FileManager.default.removeItem(atPath: scratch)

// MARK: report

connection.close()
try admin.execute("DROP DATABASE IF EXISTS payrun_bench_copy WITH (FORCE)")
admin.close()
if startedCluster { try run(repositoryRoot + "/ops/pg", ["stop"], environment: clusterEnvironment) }

func format(_ rate: Double) -> String {
    let whole = Int(rate.rounded())
    var digits = String(whole)
    var grouped = ""
    while digits.count > 3 {
        grouped = "," + digits.suffix(3) + grouped
        digits = String(digits.dropLast(3))
    }
    return digits + grouped
}

print("| measurement | rows | best rows/s | median rows/s | rows per client CPU-second (median) |")
print("|---|---|---|---|---|")
print("| load shifts: PostgresClient copyIn, 10 columns, 3-column PK (once) | \(shiftRowCount) | \(format(Double(shiftRowCount) / loadSeconds)) | — | — |")
for measurement in [decode, decodeParallel, write, psqlOut, psqlIn] {
    let label: String
    switch measurement.label {
    case "decode": label = "decode: PostgresClient copyOut → [Shift] (10 columns)"
    case "decode2": label = "decode, 2 streams: 2 connections × copyOut of half the table (TID ranges) → [Shift], 2 threads"
    case "write": label = "write: PostgresClient copyIn, \(resultColumns) int8 columns, no index"
    default: label = measurement.label
    }
    let clientRate = measurement.label.hasPrefix("psql") ? "— (psql process)" : format(measurement.rowsPerClientCPUSecond)
    print("| \(label) | \(measurement.rows) | \(format(measurement.best)) | \(format(measurement.median)) | \(clientRate) |")
}
print("")
print("checksum \(decodeChecksum) (sum of shift ids, break minutes and contract ids decoded)")
