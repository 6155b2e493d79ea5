import PayrollRules
import PostgresClient

/// Stores computed payslips of one run: binary COPY into the unlogged `payslip_staging` under a
/// staging key, then one `INSERT … SELECT … ON CONFLICT DO UPDATE` into `payslips` (a rerun
/// replaces a payslip and bumps its `revision`, never duplicates it), then the staging rows are
/// deleted. Runs in the caller's transaction, so the payslips appear exactly when the caller's
/// job completion commits. Failed employees get a row with `error` and no amounts.
public enum PayslipWriter {
    static let payslipColumns = """
        tenant_id, run_id, employee_id, run_version, rule_set, input_digest,
        worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes,
        holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes,
        gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won,
        earnings, deductions, warnings, error
        """

    /// Writes `payslips` for `run`; returns the number of rows written.
    @discardableResult
    public static func write(_ payslips: [ComputedPayslip], run: PayrollRun, stagingKey: StagingKey,
                             on connection: PostgresConnection) throws -> Int {
        guard !payslips.isEmpty else { return 0 }
        if payslips.count == 1 { return try writeOne(payslips[0], run: run, on: connection) }
        try connection.copyIn("COPY payrun.payslip_staging (lease_token, \(payslipColumns)) FROM STDIN (FORMAT binary)") { writer in
            for p in payslips {
                try writer.row { r in
                    r.bytea(stagingKey.bytes)  // uuid: 16 raw bytes in binary format
                    r.int64(run.tenantId)
                    r.int64(run.id)
                    r.int64(p.employeeId)
                    r.int32(run.version)
                    switch p.result {
                    case .success(let slip):
                        r.text(slip.ruleSet)
                        if let d = p.inputDigest { r.bytea(d) } else { r.null() }
                        let m = slip.minutes
                        for v in [m.worked, m.regular, m.overtime, m.partTimeExcess, m.night, m.holiday, m.holidayOver8,
                                  m.weeklyAllowance, m.paidHoliday] {
                            r.int32(Int32(clamping: v))
                        }
                        for v in [slip.gross, slip.nonTaxable, slip.taxable, slip.totalDeductions, slip.net] { r.int64(v) }
                        r.bytea(jsonb(PayslipJSON.earnings(slip.earnings)))
                        r.bytea(jsonb(PayslipJSON.deductions(slip.deductions)))
                        r.bytea(jsonb(PayslipJSON.warnings(slip.warnings)))
                        r.null()
                    case .failure(let error):
                        r.null()
                        if let d = p.inputDigest { r.bytea(d) } else { r.null() }
                        for _ in 0..<14 { r.null() }
                        r.null()
                        r.null()
                        r.bytea(jsonb(Array("[]".utf8)))
                        r.bytea(jsonb(PayslipJSON.error(error)))
                    }
                }
            }
        }
        let key = PostgresValue.text(stagingKey.description)
        let moved = try connection.execute("""
            INSERT INTO payrun.payslips AS p (\(payslipColumns))
            SELECT \(payslipColumns) FROM payrun.payslip_staging WHERE lease_token = $1::uuid
            \(upsertClause)
            """, [key]).affectedRowCount ?? 0
        try connection.execute("DELETE FROM payrun.payslip_staging WHERE lease_token = $1::uuid", [key])
        return moved
    }

    /// One payslip (a recalculation): a single parameterized upsert, skipping the staging round
    /// trip (COPY + move + delete) that only pays off for many rows. Same columns, same conflict rule.
    static func writeOne(_ p: ComputedPayslip, run: PayrollRun, on connection: PostgresConnection) throws -> Int {
        var values: [PostgresValue] = [.int(run.tenantId), .int(run.id), .int(p.employeeId), .int32(run.version)]
        let digest: PostgresValue = p.inputDigest.map { .bytea($0) } ?? .null
        switch p.result {
        case .success(let slip):
            let m = slip.minutes
            values.append(.text(slip.ruleSet))
            values.append(digest)
            values += [m.worked, m.regular, m.overtime, m.partTimeExcess, m.night, m.holiday, m.holidayOver8,
                       m.weeklyAllowance, m.paidHoliday].map { .int32(Int32(clamping: $0)) }
            values += [slip.gross, slip.nonTaxable, slip.taxable, slip.totalDeductions, slip.net].map { .int($0) }
            values += [PayslipJSON.earnings(slip.earnings), PayslipJSON.deductions(slip.deductions), PayslipJSON.warnings(slip.warnings)]
                .map { .text(String(decoding: $0, as: UTF8.self)) }
            values.append(.null)
        case .failure(let error):
            values += [.null, digest] + Array(repeating: .null, count: 16)
            values += [.text("[]"), .text(String(decoding: PayslipJSON.error(error), as: UTF8.self))]
        }
        let placeholders = (1...values.count).map { n in n >= 21 ? "$\(n)::jsonb" : "$\(n)" }.joined(separator: ", ")
        return try connection.execute("""
            INSERT INTO payrun.payslips AS p (\(payslipColumns)) VALUES (\(placeholders))
            \(upsertClause)
            """, values).affectedRowCount ?? 0
    }

    static let upsertClause = """
            ON CONFLICT (tenant_id, run_id, employee_id) DO UPDATE SET
                run_version = EXCLUDED.run_version, revision = p.revision + 1, computed_at = now(),
                rule_set = EXCLUDED.rule_set, input_digest = EXCLUDED.input_digest,
                worked_minutes = EXCLUDED.worked_minutes, regular_minutes = EXCLUDED.regular_minutes,
                overtime_minutes = EXCLUDED.overtime_minutes, part_time_excess_minutes = EXCLUDED.part_time_excess_minutes,
                night_minutes = EXCLUDED.night_minutes, holiday_minutes = EXCLUDED.holiday_minutes,
                holiday_over8_minutes = EXCLUDED.holiday_over8_minutes,
                weekly_allowance_minutes = EXCLUDED.weekly_allowance_minutes,
                paid_holiday_minutes = EXCLUDED.paid_holiday_minutes,
                gross_won = EXCLUDED.gross_won, non_taxable_won = EXCLUDED.non_taxable_won,
                taxable_won = EXCLUDED.taxable_won, total_deductions_won = EXCLUDED.total_deductions_won,
                net_won = EXCLUDED.net_won, earnings = EXCLUDED.earnings, deductions = EXCLUDED.deductions,
                warnings = EXCLUDED.warnings, error = EXCLUDED.error
            """

    /// jsonb's binary format: version 1, then the text.
    static func jsonb(_ text: [UInt8]) -> [UInt8] { [1] + text }
}
