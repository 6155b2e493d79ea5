import ArgumentParser
import PayrollRules
import PayrollStore
import PostgresClient

/// `payrun seed`: a large synthetic store, by binary COPY, for benchmarks.
struct SeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Generate a synthetic store (tenants, workplaces, employees, contracts, shifts, absences) by binary COPY.",
        discussion: """
            Applies pending migrations first, then adds new tenants to the database in
            one transaction and runs ANALYZE on the seeded tables. Deterministic: the
            same options give the same rows. The month's workplaces have month_end_day
            set, so `payrun schedule month-end --period YYYY-MM` (or a running worker)
            creates their runs. Connect as a superuser or a BYPASSRLS role: PostgreSQL
            refuses COPY FROM into tables whose row-level security applies to the role.
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Tenants (employers).") var tenants: Int = 1
    @Option(help: "Employees in total, across all tenants.") var employees: Int
    @Option(name: .customLong("shifts-per-employee"), help: "Average shifts per employee in the month (1…26).")
    var shiftsPerEmployee: Int = 22
    @Option(help: "Random seed: the same seed gives the same store.") var seed: UInt64 = 1
    @Option(help: ArgumentHelp("The month seeded.", valueName: "YYYY-MM")) var period: String = "2026-10"
    @Flag(help: "VACUUM (ANALYZE) the seeded tables afterwards (hint bits and visibility map set before a benchmark).")
    var vacuum = false

    func run() throws {
        let (year, month) = try PayrollCommandSupport.parseMonth(period)
        guard let first = LocalDate(year: year, month: month, day: 1) else { throw CommandFailure("no such month \(period)") }
        let spec = SeedSpec(tenants: tenants, employees: employees, shiftsPerEmployee: shiftsPerEmployee, seed: seed, period: first)
        do {
            try spec.validate()
        } catch {
            throw CommandFailure(error.message)
        }
        let connection = try database.connect()
        defer { connection.close() }
        let migrated = try Migrator().migrate(connection)
        if !migrated.isEmpty { print("applied \(migrated.count) migration(s)") }

        let progress = TerminalProgress()
        let clock = ContinuousClock()
        let started = clock.now
        let summary: SeedSummary
        do {
            summary = try StoreSeeder.seed(spec, on: connection) { p in
                let percent = p.employeesTotal > 0 ? p.employeesWritten * 100 / p.employeesTotal : 0
                progress.update("seed: \(p.phase) — employees \(p.employeesWritten)/\(p.employeesTotal) (\(percent) %), \(Self.tenths(Self.milliseconds(clock.now - started) / 100)) s")
            }
        } catch let error as PayrollStoreError {
            progress.finish()
            throw CommandFailure(error.message)
        } catch {
            progress.finish()
            throw error
        }
        var vacuumMilliseconds: Int64?
        if vacuum {
            progress.update("seed: vacuum")
            let vacuumStarted = clock.now
            try StoreSeeder.vacuum(on: connection)
            vacuumMilliseconds = Self.milliseconds(clock.now - vacuumStarted)
        }
        progress.finish()
        let bytes = try connection.queryOne("SELECT pg_database_size(current_database())")?.int64(at: 0) ?? 0
        let milliseconds = max(Self.milliseconds(summary.elapsed), 1)
        let ids = summary.tenantIds
        print("seeded \(period) (seed \(seed)) into \(DatabaseOptions.redacted(try database.resolvedURL()))")
        print("  tenants      \(Money.grouped(Int64(ids.count)))" + (ids.first.map { "  (ids \($0)…\(ids.last ?? $0))" } ?? ""))
        print("  workplaces   \(Money.grouped(Int64(summary.workplaces)))  (+ \(summary.workplaceHolidays) company holiday rows)")
        print("  employees    \(Money.grouped(Int64(summary.employees)))")
        print("  contracts    \(Money.grouped(Int64(summary.contracts)))")
        print("  shifts       \(Money.grouped(Int64(summary.shifts)))")
        print("  absences     \(Money.grouped(Int64(summary.absences)))")
        print("  elapsed      \(Self.tenths(milliseconds / 100)) s (of which indexes and constraints "
              + "\(Self.tenths(Self.milliseconds(summary.restoreElapsed) / 100)) s, ANALYZE \(Self.tenths(Self.milliseconds(summary.analyzeElapsed) / 100)) s)")
        print("  rows/s       \(Money.grouped(Int64(summary.rows) * 1_000 / milliseconds))")
        let shown = summary.phases.filter { Self.milliseconds($0.elapsed) >= 100 }
        if !shown.isEmpty {
            print("  by phase     " + shown.map { "\($0.name) \(Self.tenths(Self.milliseconds($0.elapsed) / 100)) s" }.joined(separator: ", "))
        }
        if let vacuumMilliseconds { print("  vacuum       \(Self.tenths(vacuumMilliseconds / 100)) s (VACUUM (ANALYZE), after the seed)") }
        print("  database     \(Self.tenths(bytes * 10 / 1_048_576)) MiB (pg_database_size)")
    }

    static func milliseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    /// `123` tenths → `"12.3"`.
    static func tenths(_ value: Int64) -> String { "\(Money.grouped(value / 10)).\(value % 10)" }
}
