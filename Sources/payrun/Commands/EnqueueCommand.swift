import ArgumentParser
import PayrollStore
import PostgresClient

/// `payrun enqueue recalc`: the command-line form of `payrun.enqueue_recalculation`.
struct EnqueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Ask for payroll work.", subcommands: [EnqueueRecalcCommand.self])
}

struct EnqueueRecalcCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recalc",
        abstract: "Recalculate one employee-period (replaces the payslip in the open run).",
        discussion: """
            Calls payrun.enqueue_recalculation(tenant, employee, period) in a transaction
            scoped to the tenant: deduplicated while a request for the same employee-
            period is pending. If the run of that period is approved (locked), nothing is
            recomputed: the request is recorded as a pending correction for a correction
            run, and this command says so.
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Tenant id.") var tenant: Int64
    @Option(help: "Employee id.") var employee: Int64
    @Option(help: ArgumentHelp("A day of the period (or its month).", valueName: "YYYY-MM[-DD]")) var period: String
    @Option(help: "Why (kept with a pending correction).") var reason: String?
    @Flag(help: "Wait until a worker has done the job (progress on a terminal); print the outcome.") var wait = false
    @Option(help: ArgumentHelp("With --wait: give up after this many seconds (0: never).", valueName: "SECONDS")) var timeout = 0

    func run() throws {
        let date = try PayrollCommandSupport.parseDate(period, option: "--period")
        let connection = try database.connect()
        defer { connection.close() }
        let jobId: Int64? = try PayrollCommandSupport.inTenant(tenant, connection) { c in
            do {
                return try c.queryOne("SELECT payrun.enqueue_recalculation($1, $2, $3::date, $4)",
                                      [.int(tenant), .int(employee), .text(date.description), .text(reason)])?
                    .decode(Int64?.self, at: 0)
            } catch let error as PostgresError {
                throw CommandFailure(error.message)
            }
        }
        if let jobId {
            print("recalculation of employee \(employee) for \(date.description.prefix(7)) enqueued: job \(jobId)")
            if wait { try JobWaiter.wait(jobId: jobId, timeoutSeconds: timeout, on: connection) }
        } else {
            print("the run covering \(date) is approved (locked): recorded as a pending correction for a correction run; no payslip changes")
        }
    }
}
