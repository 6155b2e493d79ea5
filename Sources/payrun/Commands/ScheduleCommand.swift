import ArgumentParser
import PayrollStore

/// `payrun schedule month-end`: creates month-end runs and their planning jobs.
struct ScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule", abstract: "Create payroll runs and their planning jobs.",
        subcommands: [ScheduleMonthEndCommand.self])
}

struct ScheduleMonthEndCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "month-end",
        abstract: "Create the month's run of every workplace (or one tenant / one workplace) and enqueue its planning.",
        discussion: """
            Idempotent: a workplace whose period already has a run (not cancelled) keeps
            it and no job is added, so running this twice creates nothing new. A running
            `payrun worker` plans and computes the runs. Pay date: --pay-date, else the
            workplace's pay_day_of_month in the following month, else the 10th of the
            following month. Without --tenant, connect as a role that sees every tenant
            (the schema owner, a superuser or payrun_worker). With --wait it follows the
            runs until they are calculated (a progress line on stderr when it is a
            terminal) and prints each run's status; it fails if a run failed.
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: ArgumentHelp("The month to pay.", valueName: "YYYY-MM")) var period: String
    @Option(help: "Only this tenant.") var tenant: Int64?
    @Option(help: "Only this workplace (with --tenant).") var workplace: Int64?
    @Option(name: .customLong("pay-date"), help: ArgumentHelp("Payment date.", valueName: "YYYY-MM-DD")) var payDate: String?
    @Flag(help: "Wait until every scheduled run is calculated (or failed), showing progress on a terminal; print each run's status.")
    var wait = false
    @Option(help: ArgumentHelp("With --wait: give up after this many seconds (0: never).", valueName: "SECONDS")) var timeout = 0

    func validate() throws {
        if workplace != nil, tenant == nil { throw ValidationError("--workplace needs --tenant") }
        if timeout < 0 { throw ValidationError("--timeout must be ≥ 0") }
    }

    func run() throws {
        let (year, month) = try PayrollCommandSupport.parseMonth(period)
        let pay = try payDate.map { try PayrollCommandSupport.parseDate($0, option: "--pay-date") }
        let connection = try database.connect()
        defer { connection.close() }
        let scheduled: [RunScheduler.Scheduled]
        do {
            scheduled = try RunScheduler.scheduleMonthEnd(year: year, month: month, tenantId: tenant, workplaceId: workplace,
                                                          payDate: pay, on: connection)
        } catch let error as PayrollStoreError {
            throw CommandFailure(error.description)
        }
        for s in scheduled {
            print("tenant \(s.tenantId) workplace \(s.workplaceId): run \(s.runId) "
                  + (s.created ? "created, plan job \(s.planJobId.map(String.init) ?? "-")" : "already exists"))
        }
        let created = scheduled.filter(\.created).count
        print("\(created) run(s) created, \(scheduled.count - created) already existed")
        guard wait, !scheduled.isEmpty else { return }
        let runs = try RunWaiter.wait(for: scheduled.map { RunWaiter.Watched(tenantId: $0.tenantId, runId: $0.runId) },
                                      timeoutSeconds: timeout, label: "month-end \(period)", on: connection)
        for run in runs { print(RunWaiter.line(run)) }
        let failed = runs.filter { $0.status == .failed }
        if !failed.isEmpty {
            throw CommandFailure("run(s) \(failed.map { String($0.id) }.joined(separator: ", ")) failed; see `payrun runs show`")
        }
    }
}
