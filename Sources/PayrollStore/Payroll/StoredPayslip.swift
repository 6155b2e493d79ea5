import PayrollRules
import PostgresClient

/// A payslip row read back from `payrun.payslips`, with the employee's identifying data
/// (임금명세서 item 1). `result` is the same `Payslip` value `PayrollCalculator` produced, so
/// `CalcResponseEncoder` prints it exactly as `payrun calc` would.
public struct StoredPayslip: Sendable {
    public var runId: Int64
    public var employeeId: Int64
    public var employeeNumber: String?
    public var employeeName: String
    public var birthDate: LocalDate?
    public var runVersion: Int32
    public var revision: Int32
    public var inputDigestHex: String?
    public var result: Result<Payslip, PayrollError>

    /// Payslips of a run (all employees, or one), in employee-id order.
    public static func fetch(tenantId: Int64, runId: Int64, employeeId: Int64? = nil,
                             on connection: PostgresConnection) throws -> [StoredPayslip] {
        let rows = try connection.query("""
            SELECT p.employee_id, e.employee_number, e.name, e.birth_date, p.run_version, p.revision,
                   encode(p.input_digest, 'hex'), p.rule_set,
                   p.worked_minutes, p.regular_minutes, p.overtime_minutes, p.part_time_excess_minutes, p.night_minutes,
                   p.holiday_minutes, p.holiday_over8_minutes, p.weekly_allowance_minutes, p.paid_holiday_minutes,
                   p.gross_won, p.non_taxable_won, p.taxable_won, p.total_deductions_won, p.net_won,
                   p.earnings::text, p.deductions::text, p.warnings::text, p.error::text
              FROM payrun.payslips p
              JOIN payrun.employees e ON e.tenant_id = p.tenant_id AND e.id = p.employee_id
             WHERE p.tenant_id = $1 AND p.run_id = $2 AND ($3::bigint IS NULL OR p.employee_id = $3)
             ORDER BY p.employee_id
            """, [.int(tenantId), .int(runId), .int(employeeId)])
        return try rows.map { row in
            let employeeId = try row.int64(at: 0)
            var stored = StoredPayslip(
                runId: runId, employeeId: employeeId, employeeNumber: try row.decode(String?.self, at: 1),
                employeeName: try row.string(at: 2),
                birthDate: try row.decode(PostgresDate?.self, at: 3).map(DateConversion.localDate),
                runVersion: try row.int32(at: 4), revision: try row.int32(at: 5),
                inputDigestHex: try row.decode(String?.self, at: 6),
                result: .failure(PayrollError(.invalidValue, "unread")))
            if let errorText = try row.decode(String?.self, at: 25) {
                stored.result = .failure(try PayslipDecoder.error(errorText))
            } else {
                var minutes = MinuteBuckets()
                minutes.worked = Int64(try row.int32(at: 8))
                minutes.regular = Int64(try row.int32(at: 9))
                minutes.overtime = Int64(try row.int32(at: 10))
                minutes.partTimeExcess = Int64(try row.int32(at: 11))
                minutes.night = Int64(try row.int32(at: 12))
                minutes.holiday = Int64(try row.int32(at: 13))
                minutes.holidayOver8 = Int64(try row.int32(at: 14))
                minutes.weeklyAllowance = Int64(try row.int32(at: 15))
                minutes.paidHoliday = Int64(try row.int32(at: 16))
                stored.result = .success(Payslip(
                    employeeId: String(employeeId), ruleSet: try row.string(at: 7), minutes: minutes,
                    earnings: try PayslipDecoder.earnings(try row.string(at: 22)),
                    gross: try row.int64(at: 17), nonTaxable: try row.int64(at: 18), taxable: try row.int64(at: 19),
                    deductions: try PayslipDecoder.deductions(try row.string(at: 23)),
                    totalDeductions: try row.int64(at: 20), net: try row.int64(at: 21),
                    warnings: try PayslipDecoder.warnings(try row.string(at: 24))))
            }
            return stored
        }
    }
}
