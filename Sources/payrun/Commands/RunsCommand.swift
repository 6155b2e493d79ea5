import ArgumentParser
import PayrollStore
import PostgresClient

/// `payrun runs list|show|approve`.
struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs", abstract: "List, show and approve payroll runs.",
        subcommands: [RunsListCommand.self, RunsShowCommand.self, RunsApproveCommand.self])
}

struct RunsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "A tenant's runs, newest period first.")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Tenant id (default: every tenant this role sees).") var tenant: Int64?
    @Option(help: "At most this many per tenant.") var limit: Int = 50

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        print(RunsTable.header)
        for tenant in try RunScheduler.tenantIds(tenant, on: connection) {
            let runs = try PayrollCommandSupport.inTenant(tenant, connection) { c in try PayrollRun.list(tenantId: tenant, limit: limit, on: c) }
            for run in runs { print(RunsTable.row(run)) }
        }
    }
}

enum RunsTable {
    static let header = ["run", "workplace", "period", "pay date", "status", "employees", "failed", "chunks", "net"]
        .enumerated().map { PayrollCommandSupport.pad($0.element, widths[$0.offset]) }.joined()
    static let widths = [8, 10, 24, 12, 24, 10, 8, 8, 16]

    static func row(_ r: PayrollRun) -> String {
        [String(r.id), String(r.workplaceId), "\(r.periodStart)…\(r.periodEnd)", r.payDate.description, r.status.rawValue,
         "\(r.employeesDone + r.employeesFailed)/\(r.employeesTotal)", String(r.employeesFailed), "\(r.chunksDone)/\(r.chunksTotal)",
         PayrollCommandSupport.won(r.netWon)]
            .enumerated().map { PayrollCommandSupport.pad($0.element, widths[$0.offset]) }.joined()
    }
}

struct RunsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "One run: status, totals, digest, failed employees with reasons, pending corrections.")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Tenant id (default: the run's, for roles that see every tenant).") var tenant: Int64?
    @Argument(help: "Run id.") var runId: Int64

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        let tenant = try PayrollCommandSupport.tenant(of: runId, given: self.tenant, on: connection)
        try PayrollCommandSupport.inTenant(tenant, connection) { c in
            guard let r = try PayrollRun.fetch(tenantId: tenant, runId: runId, on: c) else {
                throw CommandFailure("run \(runId) does not exist in tenant \(tenant)")
            }
            print(RunsShowCommand.summary(r))
            if let reason = try RunFailure.reason(tenantId: tenant, runId: runId, on: c) { print("failure: \(reason)") }
            // Where the chunks' time went (run_chunks, migration 0010), summed over chunks.
            if let p = try c.queryOne("""
                SELECT count(load_us), coalesce(sum(load_us), 0)::bigint, coalesce(sum(compute_us), 0)::bigint,
                       coalesce(sum(write_us), 0)::bigint, coalesce(sum(finish_us), 0)::bigint, coalesce(sum(shifts_loaded), 0)::bigint
                  FROM payrun.run_chunks WHERE tenant_id = $1 AND run_id = $2
                """, [.int(tenant), .int(runId)]), try p.int64(at: 0) > 0 {
                func ms(_ column: Int) throws -> String { "\(try p.int64(at: column) / 1000) ms" }
                print("phases over \(try p.int64(at: 0)) chunk(s): load \(try ms(1)), compute \(try ms(2)), write \(try ms(3)), finish \(try ms(4)); \(try p.int64(at: 5)) shifts loaded")
            }
            let failed = try c.query("""
                SELECT p.employee_id, coalesce(e.employee_number, ''), e.name, p.error ->> 'code', p.error ->> 'message', coalesce(p.error ->> 'field', '')
                  FROM payrun.payslips p JOIN payrun.employees e ON e.tenant_id = p.tenant_id AND e.id = p.employee_id
                 WHERE p.tenant_id = $1 AND p.run_id = $2 AND p.error IS NOT NULL ORDER BY p.employee_id
                """, [.int(tenant), .int(runId)])
            if !failed.isEmpty {
                print("failed employees (not paid by this run):")
                for f in failed {
                    let field = try f.string(at: 5)
                    let place = field.isEmpty ? "" : " at \(field)"
                    print("  \(try f.int64(at: 0)) \(try f.string(at: 1)) \(try f.string(at: 2)): \(try f.string(at: 3))\(place): \(try f.string(at: 4))")
                }
            }
            let corrections = try c.query("""
                SELECT employee_id, requested_at::text, coalesce(reason, '') FROM payrun.pending_corrections
                 WHERE tenant_id = $1 AND run_id = $2 AND resolved_at IS NULL ORDER BY employee_id
                """, [.int(tenant), .int(runId)])
            if !corrections.isEmpty {
                print("pending corrections (for a correction run):")
                for p in corrections { print("  employee \(try p.int64(at: 0)) since \(try p.string(at: 1)) \(try p.string(at: 2))") }
            }
        }
    }

    static func summary(_ r: PayrollRun) -> String {
        """
        run \(r.id) (tenant \(r.tenantId), workplace \(r.workplaceId)) \(r.periodStart) … \(r.periodEnd), pay date \(r.payDate)
        status: \(r.status.rawValue) (version \(r.version), \(r.fiveOrMore ? "5인 이상" : "5인 미만"))
        employees: \(r.employeesDone) paid, \(r.employeesFailed) failed of \(r.employeesTotal); chunks \(r.chunksDone)/\(r.chunksTotal); warnings \(r.warningsCount)
        gross \(PayrollCommandSupport.won(r.grossWon)), deductions \(PayrollCommandSupport.won(r.totalDeductionsWon)), net \(PayrollCommandSupport.won(r.netWon))
        input digest: \(r.inputDigestHex ?? ((r.status == .calculated || r.status == .calculatedWithErrors) ? "stale (recalculated since; recomputed at approval)" : "-"))
        """
    }
}

struct RunsApproveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve", abstract: "Approve (lock) a calculated run.",
        discussion: "An approved run and its payslips never change again; later recalculations become pending corrections.")
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Tenant id (default: the run's, for roles that see every tenant).") var tenant: Int64?
    @Option(name: .customLong("by"), help: "Who approves (recorded).") var approvedBy: String = "payrun-cli"
    @Flag(name: .customLong("allow-errors"), help: "Approve although some employees failed.") var allowErrors = false
    @Argument(help: "Run id.") var runId: Int64

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        let tenant = try PayrollCommandSupport.tenant(of: runId, given: self.tenant, on: connection)
        do {
            let approved = try PayrollCommandSupport.inTenant(tenant, connection) { c in
                try RunApproval.approve(tenantId: tenant, runId: runId, approvedBy: approvedBy, allowErrors: allowErrors, on: c)
            }
            print("run \(approved.id) approved: net \(PayrollCommandSupport.won(approved.netWon)) for \(approved.employeesDone) employee(s)")
        } catch let error as PayrollStoreError {
            throw CommandFailure(error.description)
        }
    }
}
