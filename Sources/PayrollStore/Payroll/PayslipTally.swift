import PayrollRules

/// A part's payslip counts and sums, taken by `ChunkProcessor.computePartsTallied` while it held
/// each payslip, in the part's employee order: the counts `WrittenChunkResult` holds, without
/// reading (and copying) every payslip again. Payslips without and with an error, warnings; sums
/// of gross, non-taxable, taxable, total deductions and net, with `overflowed` set once a sum went
/// beyond `bigint` (`WrittenChunkResult` then gives no result).
struct PayslipTally: Sendable, Hashable {
    var done: Int64 = 0
    var failed: Int64 = 0
    var warnings: Int64 = 0
    var gross: Int64 = 0
    var nonTaxable: Int64 = 0
    var taxable: Int64 = 0
    var totalDeductions: Int64 = 0
    var net: Int64 = 0
    var overflowed = false

    /// Counts `result` and adds its amounts (in the order `WrittenChunkResult` adds them).
    mutating func add(_ result: Result<Payslip, PayrollError>) {
        switch result {
        case .success(let slip): add(slip)
        case .failure: failed += 1
        }
    }

    /// Counts a payslip without an error and adds its amounts.
    @inline(__always)
    mutating func add(_ slip: Payslip) {
        done += 1
        warnings += Int64(slip.warnings.count)
        if overflowed { return }
        overflowed = !Self.add(&gross, slip.gross) || !Self.add(&nonTaxable, slip.nonTaxable) || !Self.add(&taxable, slip.taxable)
            || !Self.add(&totalDeductions, slip.totalDeductions) || !Self.add(&net, slip.net)
    }

    @inline(__always)
    private static func add(_ sum: inout Int64, _ amount: Int64) -> Bool {
        let (total, overflow) = sum.addingReportingOverflow(amount)
        sum = total
        return !overflow
    }
}
