import PayrollRules
import PostgresClient

/// What one payslip contributes to its run's counters and totals.
struct PayslipTotals {
    var done: Int32 = 0
    var failed: Int32 = 0
    var warnings: Int32 = 0
    var amounts: [Int64] = [0, 0, 0, 0, 0]  // gross, non-taxable, taxable, deductions, net

    init(_ result: Result<Payslip, PayrollError>) {
        switch result {
        case .success(let p):
            done = 1
            warnings = Int32(clamping: p.warnings.count)
            amounts = [p.gross, p.nonTaxable, p.taxable, p.totalDeductions, p.net]
        case .failure:
            failed = 1
        }
    }

    init() {}

    /// The stored payslip's contribution (zero when there is none yet).
    static func fetch(tenantId: Int64, runId: Int64, employeeId: Int64, on connection: PostgresConnection) throws -> PayslipTotals {
        var totals = PayslipTotals()
        guard let row = try connection.queryOnePrepared("""
            SELECT error IS NULL, jsonb_array_length(warnings), coalesce(gross_won, 0), coalesce(non_taxable_won, 0),
                   coalesce(taxable_won, 0), coalesce(total_deductions_won, 0), coalesce(net_won, 0)
              FROM payrun.payslips WHERE tenant_id = $1 AND run_id = $2 AND employee_id = $3
            """, [.int(tenantId), .int(runId), .int(employeeId)])
        else { return totals }
        if try row.bool(at: 0) { totals.done = 1 } else { totals.failed = 1 }
        totals.warnings = try row.int32(at: 1)
        totals.amounts = try (2...6).map { try row.int64(at: $0) }
        return totals
    }

    /// This minus `old` as integers: done, failed, warnings, then the five amounts.
    func deltaValues(from old: PayslipTotals?) -> [Int64] {
        let old = old ?? PayslipTotals()
        return [Int64(done - old.done), Int64(failed - old.failed), Int64(warnings - old.warnings)]
            + zip(amounts, old.amounts).map { $0 - $1 }
    }
}
