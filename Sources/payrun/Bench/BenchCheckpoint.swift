import Foundation
import PostgresClient

/// `CHECKPOINT` before each measured step of `payrun bench`, so that no step pays for writing out
/// what the step before it (or the store's preparation: truncation, VACUUM ANALYZE) left dirty in
/// shared buffers and WAL. Without it, the first series of session 3 measured the 1,000,000-employee
/// month-end at 36 % fewer employees/s than the next two, with the same load phase and longer write
/// and commit phases (benchmarks/RESULTS.md). Needs a superuser or the pg_checkpoint role;
/// elsewhere the bench says so and goes on.
enum BenchCheckpoint {
    /// Runs CHECKPOINT on `url`'s server; false (after logging why) if it was refused.
    @discardableResult
    static func run(url: String, before step: String, log: (String) -> Void) -> Bool {
        do {
            let connection = try PostgresConnection(url: url)
            defer { connection.close() }
            try connection.execute("CHECKPOINT")
            return true
        } catch {
            log("CHECKPOINT before \(step) not done (\(error)); the step may pay for earlier writes")
            return false
        }
    }
}

/// Autovacuum kept out of the timed steps of `payrun bench`. Each month-end starts on emptied
/// tables (`BenchStore.resetForMonthEnd`): with no rows counted, autovacuum's thresholds are 50
/// rows for an analyze and 1,000 for a vacuum, so it used to start workers on `payslips`,
/// `run_chunks`, `payroll_runs` and `jobs` in the middle of a month-end or of the floor or the SQL
/// baseline after it, whenever its launcher came by: `payslips` alone had been autovacuumed 79
/// times in the 100,000-employee store by session 15, ≈ 0.5 s of a backend each time, landing in
/// whichever step ran then. The floor's and the baseline's result tables are written the same way.
///
/// So for the measurements of a size the bench turns autovacuum off on the tables the steps write
/// (`autovacuum_enabled = false`, this store's tables only, set back afterwards), and before
/// each step waits (at most a minute) until no autovacuum worker runs on the server, runs VACUUM (ANALYZE)
/// on those tables itself, untimed, then CHECKPOINT (`BenchCheckpoint`). A month-end is timed
/// without somebody else's housekeeping in it, and so are the floor and the baseline.
enum BenchHousekeeping {
    /// The tables the bench's steps write (month-end, floor, SQL baseline).
    static let writtenTables = ["payrun.jobs", "payrun.payroll_runs", "payrun.run_chunks", "payrun.payslips",
                                "payrun.pending_corrections",
                                "payrun_bench.floor_payslips", "payrun_bench.sql_baseline_result"]

    /// The `writtenTables` that exist in `url`'s database.
    static func existingTables(on connection: PostgresConnection) throws -> [String] {
        try writtenTables.filter { try connection.queryOne("SELECT to_regclass($1) IS NOT NULL", [.text($0)])?.bool(at: 0) == true }
    }

    /// Autovacuum on (`enabled`, the tables' default back) or off for the existing `writtenTables`.
    static func setAutovacuum(_ enabled: Bool, url: String) throws {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try setAutovacuum(enabled, tables: try existingTables(on: connection), on: connection)
    }

    static func setAutovacuum(_ enabled: Bool, tables: [String], on connection: PostgresConnection) throws {
        for table in tables {
            try connection.execute(enabled ? "ALTER TABLE \(table) RESET (autovacuum_enabled, toast.autovacuum_enabled)"
                                           : "ALTER TABLE \(table) SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)")
        }
    }

    /// Waits until no autovacuum worker runs on the server of `connection` (in any database: a
    /// worker anywhere takes a core from the step), or until `deadline`.
    static func waitForAutovacuumWorkers(on connection: PostgresConnection, until deadline: ContinuousClock.Instant) throws {
        while ContinuousClock.now < deadline,
              try connection.queryOne("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'")?.int64(at: 0) ?? 0 > 0 {
            usleep(200_000)
        }
    }

    /// Before a timed step: running autovacuum workers waited out, the written tables vacuumed and
    /// analyzed, then CHECKPOINT. Failures are logged, not thrown: the step still runs.
    static func prepareStep(url: String, before step: String, log: (String) -> Void) {
        do {
            let connection = try PostgresConnection(url: url)
            defer { connection.close() }
            try waitForAutovacuumWorkers(on: connection, until: .now + .seconds(60))
            let tables = try existingTables(on: connection)
            // Tables a step created since (the SQL baseline's result) get the same setting.
            try setAutovacuum(false, tables: tables, on: connection)
            for table in tables { try connection.execute("VACUUM (ANALYZE) \(table)") }
            // The catalogs those ANALYZEs and the floor's CREATE TABLE write (autovacuum cannot be
            // turned off on them): in run e of session 15 pg_statistic and pg_class were the only
            // autovacuums left in the timed steps. A role that does not own them gets a warning.
            for catalog in ["pg_catalog.pg_statistic", "pg_catalog.pg_class", "pg_catalog.pg_attribute"] {
                try connection.execute("VACUUM (ANALYZE) \(catalog)")
            }
        } catch {
            log("VACUUM before \(step) not done (\(error)); autovacuum may run during it")
        }
        BenchCheckpoint.run(url: url, before: step, log: log)
    }

    /// Autovacuum and autoanalyze runs finished so far on the tables of `url`'s database (system
    /// catalogs included), or nil when the statistics cannot be read.
    static func autovacuumRuns(url: String) -> Int? {
        guard let connection = try? PostgresConnection(url: url) else { return nil }
        defer { connection.close() }
        let row = (try? connection.queryOne(
            "SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0)::bigint FROM pg_stat_all_tables")) ?? nil
        return (try? row?.int64(at: 0)).flatMap { $0 }.map { Int($0) }
    }
}
