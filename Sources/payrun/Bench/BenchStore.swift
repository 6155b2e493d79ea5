import Foundation
import PayrollRules
import PayrollStore
import PostgresClient

/// A seeded store for one size of the series: database `payrun_bench_e<employees>` on the bench
/// server, seeded by `StoreSeeder`, its `SeedSpec` recorded in `payrun_bench.seed_spec`. A
/// database already seeded with the same spec is reused: the runs, payslips and jobs of an earlier
/// bench are removed (TRUNCATE) instead of seeding again. Either way it ends with VACUUM ANALYZE.
struct BenchStore {
    var name: String
    var url: String
    var spec: SeedSpec
    var employees: Int
    var shifts: Int
    /// Nil when reused.
    var seedSeconds: Double?
    var databaseBytes: Int64

    static func databaseName(_ spec: SeedSpec) -> String { "payrun_bench_e\(spec.employees)" }

    /// The spec as recorded: one line, compared as text.
    static func specText(_ spec: SeedSpec) -> String {
        "tenants=\(spec.tenants) employees=\(spec.employees) shiftsPerEmployee=\(spec.shiftsPerEmployee) seed=\(spec.seed) period=\(spec.period)"
    }

    /// Removes what a month-end wrote (payslips, runs, chunks, jobs), leaving the seeded data.
    static func removeMonthEnd(on connection: PostgresConnection) throws {
        try connection.executeScript("""
            TRUNCATE payrun.payslips, payrun.run_chunks, payrun.pending_corrections,
                     payrun.payroll_runs, payrun.jobs CASCADE;
            """)
    }

    /// Before a repeated month-end: what the last one wrote removed, then VACUUM ANALYZE, as after `prepare`.
    static func resetForMonthEnd(url: String) throws {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try removeMonthEnd(on: connection)
        try connection.execute("VACUUM ANALYZE")
    }

    static func prepare(_ spec: SeedSpec, server: BenchServer, log: (String) -> Void, progress: TerminalProgress) throws -> BenchStore {
        let name = databaseName(spec)
        let url = server.url(database: name)
        let admin = try PostgresConnection(url: server.adminURL)
        defer { admin.close() }
        let exists = try admin.queryOne("SELECT 1 FROM pg_database WHERE datname = $1", [.text(name)]) != nil
        var seedSeconds: Double?
        if exists, try recordedSpec(url: url) == specText(spec) {
            log("\(name): reusing the store seeded with \(specText(spec))")
            let connection = try PostgresConnection(url: url)
            defer { connection.close() }
            try Migrator().migrate(connection)  // a store seeded by an older payrun
            try removeMonthEnd(on: connection)
            try connection.executeScript("""
                DROP TABLE IF EXISTS payrun_bench.floor_payslips;
                DROP TABLE IF EXISTS payrun_bench.sql_baseline_result;
                """)
        } else {
            if exists { try admin.execute("DROP DATABASE \(name) WITH (FORCE)") }
            try admin.execute("CREATE DATABASE \(name)")
            let connection = try PostgresConnection(url: url)
            defer { connection.close() }
            try Migrator().migrate(connection)
            log("\(name): seeding \(specText(spec))…")
            let summary = try StoreSeeder.seed(spec, on: connection) { p in
                progress.update("seeding \(name): \(p.phase) \(p.employeesWritten)/\(p.employeesTotal) employees")
            }
            progress.finish()
            seedSeconds = seconds(summary.elapsed)
            try connection.executeScript("""
                CREATE SCHEMA IF NOT EXISTS payrun_bench;
                CREATE TABLE payrun_bench.seed_spec (spec text NOT NULL, seeded_at timestamptz NOT NULL DEFAULT now(),
                                                     seed_seconds double precision);
                """)
            try connection.execute("INSERT INTO payrun_bench.seed_spec (spec, seed_seconds) VALUES ($1, $2::text::double precision)",
                                   [.text(specText(spec)), .text(String(seedSeconds ?? 0))])
            log(String(format: "%@: seeded %d employees, %d shifts in %.1f s", name, summary.employees, summary.shifts, seedSeconds ?? 0))
        }
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        progress.update("\(name): VACUUM ANALYZE…")
        try connection.execute("VACUUM ANALYZE")
        progress.finish()
        let employees = try connection.queryOne("SELECT count(*) FROM payrun.employees")?.int64(at: 0) ?? 0
        let shifts = try connection.queryOne("SELECT count(*) FROM payrun.shifts")?.int64(at: 0) ?? 0
        let bytes = try connection.queryOne("SELECT pg_database_size(current_database())")?.int64(at: 0) ?? 0
        return BenchStore(name: name, url: url, spec: spec, employees: Int(employees), shifts: Int(shifts),
                          seedSeconds: seedSeconds, databaseBytes: bytes)
    }

    /// The spec recorded in an existing bench database, or nil (not a bench database, unfinished seeding).
    static func recordedSpec(url: String) throws -> String? {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        guard try connection.queryOne("SELECT to_regclass('payrun_bench.seed_spec') IS NOT NULL")?.bool(at: 0) == true else { return nil }
        return try connection.queryOne("SELECT spec FROM payrun_bench.seed_spec LIMIT 1")?.string(at: 0)
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
