/// The invariants every payslip satisfies (STYLE.md: "a payslip's lines add up to its gross").
/// Checked by `PayrollCalculator` before a payslip leaves the rules; a violation fails that
/// employee's result with a clear `PayrollError` instead of crashing the run. Every line states
/// its 계산방법 (`method`, 근로기준법 시행령 §27의2): since 0014 the database stores the lines as
/// `json` and no longer checks that, so this is where it is enforced.
extension Payslip {
    public func checkInvariants() throws(PayrollError) {
        func violated(_ what: String) -> PayrollError {
            PayrollError(.unsupported, "payslip invariant violated for employee \(employeeId): \(what)")
        }
        let m = minutes
        // One branch-free test first; the named list is built only when some bucket is negative.
        if (m.worked | m.regular | m.overtime | m.partTimeExcess | m.night | m.holiday | m.holidayOver8
            | m.weeklyAllowance | m.paidHoliday) < 0 {
            for (name, v) in [("worked", m.worked), ("regular", m.regular), ("overtime", m.overtime),
                              ("partTimeExcess", m.partTimeExcess), ("night", m.night), ("holiday", m.holiday),
                              ("holidayOver8", m.holidayOver8), ("weeklyAllowance", m.weeklyAllowance),
                              ("paidHoliday", m.paidHoliday)] where v < 0 {
                throw violated("\(name) minutes are negative (\(v))")
            }
        }
        let bucketSum = m.regular + m.overtime + m.partTimeExcess + m.holiday + m.holidayOver8
        guard bucketSum == m.worked else {
            throw violated("minute buckets add up to \(bucketSum), not to the \(m.worked) worked minutes")
        }
        guard m.night <= m.worked else { throw violated("night minutes (\(m.night)) exceed worked minutes (\(m.worked))") }

        // The lines' fields are read in place by index (`for line in earnings` copied each line
        // out: a retain and a release of its texts); the messages take the line only on failure.
        var earningsWon: Int64 = 0
        for k in earnings.indices {
            guard earnings[k].amount >= 0 else { throw violated("earnings line \(earnings[k].code.rawValue) is negative (\(earnings[k].amount))") }
            guard !earnings[k].methodText.isEmpty else { throw violated("earnings line \(earnings[k].code.rawValue) has no method") }
            if let minutes = earnings[k].minutes, minutes < 0 {
                throw violated("earnings line \(earnings[k].code.rawValue) has negative minutes (\(minutes))")
            }
            earningsWon &+= earnings[k].amount
        }
        guard earningsWon == gross else { throw violated("earnings lines add up to \(earningsWon), not to gross \(gross)") }
        guard nonTaxable >= 0, nonTaxable <= gross else { throw violated("non-taxable \(nonTaxable) is outside 0…gross \(gross)") }
        guard taxable == gross - nonTaxable else { throw violated("taxable \(taxable) ≠ gross \(gross) − non-taxable \(nonTaxable)") }

        var deductionsWon: Int64 = 0
        for k in deductions.indices {
            guard deductions[k].amount >= 0 else { throw violated("deduction \(deductions[k].code.rawValue) is negative (\(deductions[k].amount))") }
            guard !deductions[k].methodText.isEmpty else { throw violated("deduction \(deductions[k].code.rawValue) has no method") }
            if let base = deductions[k].base, base < 0 {
                throw violated("deduction \(deductions[k].code.rawValue) has a negative base (\(base))")
            }
            deductionsWon &+= deductions[k].amount
        }
        guard deductionsWon == totalDeductions else {
            throw violated("deduction lines add up to \(deductionsWon), not to totalDeductions \(totalDeductions)")
        }
        guard net == gross - totalDeductions else { throw violated("net \(net) ≠ gross \(gross) − totalDeductions \(totalDeductions)") }
        guard net >= 0 else { throw violated("net pay is negative (\(net))") }
    }
}
