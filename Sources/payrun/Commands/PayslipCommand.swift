import ArgumentParser
import PayrollRules
import PayrollStore
import PostgresClient

/// `payrun payslip --run R --employee E --format text|json`.
struct PayslipCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "payslip", abstract: "Print one employee's payslip of a run.",
        discussion: """
            text: the 임금명세서 with every item of the rules spec §7 and each line's 계산방법 (method).
            json: exactly the response `payrun calc` gives for the same input (or its error object).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Tenant id (default: the run's, for roles that see every tenant).") var tenant: Int64?
    @Option(name: .customLong("run"), help: "Run id.") var runId: Int64
    @Option(help: "Employee id.") var employee: Int64
    @Option(help: "text or json.") var format: Format = .text

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        let tenant = try PayrollCommandSupport.tenant(of: runId, given: self.tenant, on: connection)
        print(try Self.render(tenant: tenant, runId: runId, employee: employee, format: format, on: connection))
    }

    static func render(tenant: Int64, runId: Int64, employee: Int64, format: Format, on connection: PostgresConnection) throws -> String {
        try PayrollCommandSupport.inTenant(tenant, connection) { c in
            guard let run = try PayrollRun.fetch(tenantId: tenant, runId: runId, on: c) else {
                throw CommandFailure("run \(runId) does not exist in tenant \(tenant)")
            }
            guard let slip = try StoredPayslip.fetch(tenantId: tenant, runId: runId, employeeId: employee, on: c).first else {
                throw CommandFailure("run \(runId) has no payslip for employee \(employee) (yet)")
            }
            switch format {
            case .json:
                switch slip.result {
                case .success(let p): return CalcResponseEncoder.encode(p)
                case .failure(let e): return CalcResponseEncoder.encode(e)
                }
            case .text:
                let days = try c.queryOne("""
                    SELECT count(DISTINCT (starts_at AT TIME ZONE 'Asia/Seoul')::date) FROM payrun.shifts
                     WHERE tenant_id = $1 AND employee_id = $2
                       AND (starts_at AT TIME ZONE 'Asia/Seoul')::date BETWEEN $3::date AND $4::date
                    """, [.int(tenant), .int(employee), .text(run.periodStart.description), .text(run.periodEnd.description)])?.int64(at: 0) ?? 0
                let ratio = try c.queryOne("SELECT withholding_ratio FROM payrun.employees WHERE tenant_id = $1 AND id = $2",
                                           [.int(tenant), .int(employee)])?.decode(Int16.self, at: 0) ?? 100
                return PayslipText.render(slip, context: .init(run: run, workDays: Int(days), withholdingRatio: Int(ratio)))
            }
        }
    }
}
