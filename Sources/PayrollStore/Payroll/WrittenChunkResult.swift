import PayrollRules

/// A chunk's digest, counts and totals computed in the worker from the payslips its job wrote:
/// the values `RunFinalizer.chunkDigestSQL` computes from the stored payslips, without reading
/// them back. They are the chunk's only when those payslips are all of its payslips: the
/// direct-COPY path of a packed job, with the chunk's lock taken before the write and the rest of
/// the chunk's range found empty at completion (`RunFinalizer.completeChunks`).
///
/// As `chunkDigestSQL`: digest = SHA-256 over (employee id as 8 bytes big-endian, i.e.
/// `int8send`, then the input digest) in employee-id order; counts = payslips without and with
/// an error; warnings = elements of the stored `warnings` arrays (one per `PayrollWarning`, none
/// for an error); amounts = sums of gross, non-taxable, taxable, total deductions and net (an
/// error has none).
struct WrittenChunkResult: Sendable, Hashable {
    var digest: [UInt8]
    /// The counts and amounts (never `overflowed`: a sum beyond `bigint` gives no result).
    var counts = PayslipTally()
    /// The lowest and highest employee id written.
    var lowestEmployeeId: Int64
    var highestEmployeeId: Int64

    /// nil when it cannot be computed exactly here: no payslip; a payslip without an input digest
    /// (stored, its digest is the SHA-256 of the error's jsonb text as the server prints it,
    /// which the worker does not reproduce); an employee id twice; a sum beyond `bigint`.
    init?(_ payslips: [ComputedPayslip]) {
        if payslips.isEmpty { return nil }
        var order = Array(payslips.indices)
        // A loaded part comes in employee-id order; sorted only when it does not.
        if !zip(payslips, payslips.dropFirst()).allSatisfy({ $0.employeeId < $1.employeeId }) {
            order.sort { payslips[$0].employeeId < payslips[$1].employeeId }
        }
        digest = []
        lowestEmployeeId = payslips[order[0]].employeeId
        highestEmployeeId = payslips[order[order.count - 1]].employeeId
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payslips.count * 40)
        var previous: Int64?
        var tally = PayslipTally()
        for i in order {
            // Read in place (`let p = payslips[i]` copied the payslip, its arrays and texts retained).
            guard let inputDigest = payslips[i].inputDigest, previous != payslips[i].employeeId else { return nil }
            previous = payslips[i].employeeId
            withUnsafeBytes(of: payslips[i].employeeId.bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: inputDigest)
            tally.add(payslips[i].result)
            if tally.overflowed { return nil }
        }
        counts = tally
        digest = SHA256.digest(bytes)
    }

    /// `init(_:)` from the counts and sums `ChunkProcessor.computePartsTallied` took of the same
    /// payslips (`tally`, in their order): the payslips are not read again (each read copied a
    /// payslip, retaining and releasing its arrays and texts), only their ids and input digests.
    /// The tally's sums were added in the payslips' order, so they are `init(_:)`'s when that is
    /// employee-id order (a loaded part's); otherwise this is `init(_:)`.
    init?(_ payslips: [ComputedPayslip], tally: PayslipTally) {
        precondition(tally.done + tally.failed == Int64(payslips.count), "the tally counts these payslips")
        let ascending = payslips.withUnsafeBufferPointer { p in
            p.indices.dropFirst().allSatisfy { p[$0 - 1].employeeId < p[$0].employeeId }
        }
        guard ascending else {
            guard let result = WrittenChunkResult(payslips) else { return nil }
            self = result
            return
        }
        guard !payslips.isEmpty, !tally.overflowed else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payslips.count * 40)
        for i in payslips.indices {
            guard let inputDigest = payslips[i].inputDigest else { return nil }
            withUnsafeBytes(of: payslips[i].employeeId.bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: inputDigest)
        }
        digest = SHA256.digest(bytes)
        lowestEmployeeId = payslips[0].employeeId
        highestEmployeeId = payslips[payslips.count - 1].employeeId
        counts = tally
    }

    /// Payslips with an error.
    var failed: Int64 { counts.failed }
    /// Warnings of the payslips without an error.
    var warnings: Int64 { counts.warnings }

    /// Counts and amounts in `chunkDigestSQL`'s order after its digest: done, failed, warnings,
    /// gross, non-taxable, taxable, total deductions, net.
    var values: [Int64] {
        [counts.done, counts.failed, counts.warnings, counts.gross, counts.nonTaxable, counts.taxable, counts.totalDeductions, counts.net]
    }
}
