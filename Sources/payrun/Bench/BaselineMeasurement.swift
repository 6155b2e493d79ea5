import Foundation
import PayrollRules
import PostgresClient

/// Step 3 of `payrun bench`: the peer — `benchmarks/sql-baseline.sql`, one set-based
/// `INSERT … SELECT` inside PostgreSQL — run timed on the same data through
/// `PostgresConnection.executeScript`.
struct BaselineMeasurement {
    var wallSeconds: Double
    var employees: Int
    var path: String

    static func run(url: String, script path: String, periodStart: LocalDate) throws -> BaselineMeasurement {
        guard let sql = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CommandFailure("cannot read the SQL baseline \(path)")
        }
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try connection.execute("SELECT set_config('payrun_bench.period_start', $1, false)", [.text(periodStart.description)])
        let clock = ContinuousClock()
        let started = clock.now
        try connection.executeScript(sql)
        let wall = seconds(started.duration(to: clock.now))
        let rows = try connection.queryOne("SELECT count(*) FROM payrun_bench.sql_baseline_result")?.int64(at: 0) ?? 0
        return BaselineMeasurement(wallSeconds: wall, employees: Int(rows), path: path)
    }

    /// `benchmarks/sql-baseline.sql` of the repository around the current directory or the executable.
    static func locate() -> String? {
        var starts: [URL] = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        for start in starts {
            var dir = start
            for _ in 0..<8 {
                let candidate = dir.appendingPathComponent("benchmarks/sql-baseline.sql").path
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                dir.deleteLastPathComponent()
            }
        }
        return nil
    }
}
