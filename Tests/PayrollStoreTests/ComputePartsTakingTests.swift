import PayrollRules
import Testing
@testable import PayrollStore

/// The chunk job's glue without copies (worker-glue, session 8): `computeParts(takingInputsOf:)`
/// moves the valid inputs into the calculator and must give what `computeParts(_:)` gives; the
/// tallies it takes on the way must make `WrittenChunkResult(_:tally:)` what `WrittenChunkResult(_:)`
/// computes from the payslips themselves.
@Suite("Chunk glue: inputs taken, payslips tallied")
struct ComputePartsTakingTests {
    typealias P = PackedMonthEndTests
    typealias W = WrittenChunkTotalsTests

    /// The parts of the job with the most parts, loaded, with one employee whose input failed added to the first part.
    static func loadedParts(_ label: String) throws -> [LoadedChunk] {
        let (c, tenant, job, _) = try W.plannedJob(label)
        defer { c.close() }
        try #require(job.count >= 2)
        return try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            let runs = try job.map { part in try #require(try PayrollRun.fetch(tenantId: tenant, runId: part.runId, on: c)) }
            var loaded = try ChunkLoader.loadParts(zip(job, runs).map { ChunkLoader.PartSelection(run: $1, from: $0.from, to: $0.to) }, on: c)
            let failed = LoadedEmployee(employeeId: (loaded[0].employees.last?.employeeId ?? 0) + 1, employeeNumber: "X1",
                                        input: .failure(PayrollError(.invalidValue, "test", field: "shifts[id=1].end")), inputDigest: nil)
            loaded[0].employees.append(failed)
            return loaded
        }
    }

    @Test("taking the inputs gives computeParts' payslips; valid inputs are taken, load errors stay")
    func takingEqualsCopying() throws {
        let loaded = try Self.loadedParts("glue_taking")
        let copied = ChunkProcessor.computeParts(loaded, calculate: ChunkProcessor.serial)
        var taken = loaded
        let tallied = ChunkProcessor.computePartsTallied(takingInputsOf: &taken, calculate: ChunkProcessor.serial)
        #expect(tallied.payslips.count == copied.count)
        var failures: [Int64] = []
        for k in copied.indices {
            #expect(tallied.payslips[k].map(\.employeeId) == copied[k].map(\.employeeId))
            #expect(tallied.payslips[k].map(\.inputDigest) == copied[k].map(\.inputDigest))
            #expect(tallied.payslips[k].map(\.result) == copied[k].map(\.result), "part \(k)")
            for j in taken[k].employees.indices {
                switch (loaded[k].employees[j].input, taken[k].employees[j].input) {
                case (.success, .failure(let placeholder)): #expect(placeholder.code == .unsupported)
                case (.failure(let error), .failure(let kept)): #expect(error == kept)
                default: Issue.record("employee \(j) of part \(k): a valid input was left, or an error replaced")
                }
            }
            failures += copied[k].filter { if case .failure = $0.result { true } else { false } }.map(\.employeeId)
        }
        #expect(!failures.isEmpty)
        #expect(tallied.failures.map(\.employeeId) == failures)
        // The public variant returns the same payslips.
        var again = loaded
        #expect(ChunkProcessor.computeParts(takingInputsOf: &again, calculate: ChunkProcessor.serial).map { $0.map(\.result) }
                == copied.map { $0.map(\.result) })
    }

    @Test("WrittenChunkResult from a tally equals the one from the payslips: as loaded, with failures and warnings, unsorted, undigested, beyond bigint")
    func tallyEqualsPayslips() throws {
        let loaded = try Self.loadedParts("glue_tally")
        var taken = loaded
        let tallied = ChunkProcessor.computePartsTallied(takingInputsOf: &taken, calculate: ChunkProcessor.serial)
        func tally(_ payslips: [ComputedPayslip]) -> PayslipTally {
            var t = PayslipTally()
            for p in payslips { t.add(p.result) }
            return t
        }
        var checkedChanges = 0
        for k in tallied.payslips.indices {
            let part = tallied.payslips[k]
            #expect(tallied.tallies[k] == tally(part), "part \(k)")
            // The first part's added employee failed without a digest: nothing is summed in the worker.
            if k == 0 {
                #expect(WrittenChunkResult(part) == nil)
                #expect(WrittenChunkResult(part, tally: tallied.tallies[k]) == nil)
                continue
            }
            #expect(WrittenChunkResult(part, tally: tallied.tallies[k]) == WrittenChunkResult(part))
            #expect(WrittenChunkResult(part) != nil)
            // The cases below change two payslips and need a sum of two to overflow.
            guard part.count >= 2 else { continue }
            checkedChanges += 1
            // Unsorted: the tally's order is not id order, the payslips are read instead.
            let reversed = Array(part.reversed())
            #expect(WrittenChunkResult(reversed, tally: tally(reversed)) == WrittenChunkResult(part))
            // A failure with its digest, and warnings.
            var changed = part
            changed[0].result = .failure(PayrollError(.invalidValue, "test"))
            if case .success(var slip) = changed[1].result {
                slip.warnings.append(PayrollWarning(code: .belowMinimumWage, message: "test"))
                changed[1].result = .success(slip)
            }
            #expect(WrittenChunkResult(changed, tally: tally(changed)) == WrittenChunkResult(changed))
            #expect(WrittenChunkResult(changed)?.failed == 1)
            // A payslip without a digest.
            var undigested = part
            undigested[undigested.count - 1].inputDigest = nil
            #expect(WrittenChunkResult(undigested, tally: tally(undigested)) == nil)
            // Gross beyond bigint.
            var huge = part
            for j in huge.indices {
                if case .success(var slip) = huge[j].result { slip.gross = Int64.max / 2 + 1; huge[j].result = .success(slip) }
            }
            #expect(tally(huge).overflowed)
            #expect(WrittenChunkResult(huge, tally: tally(huge)) == nil)
            #expect(WrittenChunkResult(huge) == nil)
        }
        #expect(checkedChanges >= 1)
    }
}
