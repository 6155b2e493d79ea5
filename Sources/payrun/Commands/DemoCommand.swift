import ArgumentParser
import Foundation
import JobQueue
import Logging
import PayrollRules
import PayrollStore
import PayrunWorker
import PostgresClient

/// `payrun demo`: a month-end payroll from nothing to payslips.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a month-end payroll for a demo employer, from an empty machine to payslips.",
        discussion: """
            Without --database-url / DATABASE_URL: starts the private cluster (ops/pg, in
            .pg-demo next to ops/), creates a fresh database payrun_demo, migrates it,
            seeds a demo employer (a few workplaces; hourly part-time, hourly full-time,
            daily and monthly staff; October 2026 shifts with night, overtime and holiday
            work), schedules the month-end, runs an in-process worker until the runs are
            calculated, prints a summary and two payslips, and stops the cluster it
            started. With a database URL it uses that (empty) database instead.
            """)

    @Option(name: .customLong("database-url"), help: ArgumentHelp("Use this empty database instead of the private cluster.", valueName: "url"))
    var databaseURL: String?
    @Option(help: "Workplaces of the demo employer.") var workplaces: Int = 3
    @Option(name: .customLong("employees-per-workplace"), help: "Employees per workplace.") var employeesPerWorkplace: Int = 40
    @Option(help: "Job threads of the in-process worker.") var threads: Int = 2
    @Flag(name: .customLong("keep-cluster"), help: "Leave the private cluster running afterwards.") var keepCluster = false

    func validate() throws {
        guard (1...20).contains(workplaces), (1...999).contains(employeesPerWorkplace), (1...64).contains(threads) else {
            throw ValidationError("--workplaces 1…20, --employees-per-workplace 1…999, --threads 1…64")
        }
    }

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        var cluster: PrivateCluster?
        var startedCluster = false
        let url: String
        if let given = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"], !given.isEmpty {
            url = given
            print("using the database at \(DatabaseOptions.redacted(url))")
        } else {
            guard let found = PrivateCluster.locate() else {
                throw CommandFailure("no DATABASE_URL and no ops/pg found above the executable or the current directory")
            }
            cluster = found
            let wasRunning = (try found.run("status")).status == 0
            print("starting the private PostgreSQL cluster (\(found.directory))…")
            let (status, output) = try found.run("start", verbose: !wasRunning)
            guard status == 0, let admin = output.split(separator: "\n").last.map(String.init), !admin.isEmpty else {
                throw CommandFailure("ops/pg start failed (exit \(status))")
            }
            startedCluster = !wasRunning
            let connection = try PostgresConnection(url: admin)
            try connection.execute("DROP DATABASE IF EXISTS payrun_demo WITH (FORCE)")
            try connection.execute("CREATE DATABASE payrun_demo")
            connection.close()
            url = PostgresConnectionString.replacingDatabase(in: admin, with: "payrun_demo")
        }
        defer {
            if let cluster, startedCluster, !keepCluster {
                _ = try? cluster.run("stop")
                print("stopped the private cluster")
            }
        }
        try demo(url: url, hint: cluster == nil || keepCluster || !startedCluster)
        print("demo finished in \(clock.now - started)")
    }

    func demo(url: String, hint: Bool) throws {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try Migrator().migrate(connection)
        let employer = DemoEmployer(tenantId: 1, workplaces: workplaces, employeesPerWorkplace: employeesPerWorkplace)
        try employer.seed(on: connection)
        let shifts = try connection.queryOne("SELECT count(*) FROM payrun.shifts")?.int64(at: 0) ?? 0
        print("seeded tenant 1: \(workplaces) workplaces, \(workplaces * employeesPerWorkplace) employees, \(shifts) shifts (October 2026)")
        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: connection)
        print("scheduled month-end 2026-10: runs \(scheduled.map { String($0.runId) }.joined(separator: ", "))")

        var logger = Logger(label: "payrun.demo")
        logger.logLevel = .error
        let pool = WorkerPool(
            configuration: WorkerConfiguration(databaseURL: url, jobThreads: threads, pollSeconds: 1, workerId: "demo"),
            handlers: PayrollJobHandlers.all(), periodic: [], logger: logger)
        let worker = Thread { do { try pool.run() } catch { StandardStreams.writeError("worker: \(error)\n") } }
        worker.start()
        defer { pool.stop() }

        let progress = TerminalProgress()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(120))
        while true {
            guard let row = try connection.queryOne("""
                SELECT count(*) FILTER (WHERE status IN ('calculated', 'calculated_with_errors')), count(*),
                       coalesce(sum(chunks_done), 0), coalesce(sum(chunks_total), 0),
                       (SELECT count(*) FROM payrun.payslips)
                  FROM payrun.payroll_runs
                """) else { break }
            let done = try row.int64(at: 0), total = try row.int64(at: 1)
            progress.update("computing: runs \(done)/\(total), chunks \(try row.int64(at: 2))/\(try row.int64(at: 3)), payslips \(try row.int64(at: 4))")
            if done == total { break }
            guard clock.now < deadline else {
                progress.finish()
                throw CommandFailure("the runs were not calculated within 120 s")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        progress.finish()
        pool.stop()

        try connection.transaction { c in
            try TenantScope.set(employer.tenantId, on: c)
            print("")
            for run in try PayrollRun.list(tenantId: employer.tenantId, on: c).reversed() {
                print(RunsShowCommand.summary(run))
                print("")
            }
        }
        // Two payslips: an hourly worker with night or overtime hours, and a monthly one.
        let picks = try connection.query("""
            (SELECT p.run_id, p.employee_id FROM payrun.payslips p JOIN payrun.contracts k ON k.tenant_id = p.tenant_id AND k.employee_id = p.employee_id
              WHERE p.error IS NULL AND k.wage_type = 'hourly' AND p.night_minutes > 0 AND p.overtime_minutes + p.holiday_minutes > 0
              ORDER BY p.employee_id LIMIT 1)
            UNION ALL
            (SELECT p.run_id, p.employee_id FROM payrun.payslips p JOIN payrun.contracts k ON k.tenant_id = p.tenant_id AND k.employee_id = p.employee_id
              WHERE p.error IS NULL AND k.wage_type = 'monthly' ORDER BY p.employee_id LIMIT 1)
            """)
        for pick in picks {
            print(try PayslipCommand.render(tenant: employer.tenantId, runId: try pick.int64(at: 0), employee: try pick.int64(at: 1),
                                            format: .text, on: connection))
            print("")
        }
        if hint { print("more: payrun runs list --tenant 1 --database-url '\(url)'") } else {
            print("(run with --keep-cluster to explore the database afterwards: payrun runs list --tenant 1 …)")
        }
    }
}
