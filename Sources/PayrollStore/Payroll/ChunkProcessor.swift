import PayrollRules
import PostgresClient

/// Computes one planned chunk of a run and stores it, in the caller's transaction (the chunk job's,
/// tenant set): load by COPY → compute the valid inputs with `calculate` (the worker passes
/// `BatchCalculator.calculate`, tests may pass a serial map of `PayrollCalculator.calculate`) →
/// store every employee's payslip or error → mark the chunk finished and finalize the run if it
/// was the last. The run row is read `FOR KEY SHARE` first: chunks of one run (and
/// recalculations) proceed side by side, while planning and approval (`FOR UPDATE`) wait until
/// the chunk commits, so the version and status checked here hold until then; the run row itself
/// is updated only at the very end (`RunFinalizer.completeChunk`).
public enum ChunkProcessor {
    public typealias Calculate = @Sendable ([PayrollInput]) -> [Result<Payslip, PayrollError>]

    public struct Outcome: Sendable {
        public var employees: Int
        /// Employees whose payslip carries an error, with the reason.
        public var failures: [(employeeId: Int64, error: PayrollError)]
        public var warnings: Int
        /// True when this chunk was the last and the run is now calculated.
        public var finalizedRun: Bool
        /// Set when nothing was done (run closed, replanned, …).
        public var skippedReason: String?
        /// Where the time went.
        public var timings = ChunkPhaseTimings()
    }

    /// The serial calculator (one thread).
    public static let serial: Calculate = { inputs in
        inputs.map { input in
            do throws(PayrollError) { return .success(try PayrollCalculator.calculate(input)) } catch { return .failure(error) }
        }
    }

    public static func process(tenantId: Int64, runId: Int64, version: Int32, chunkNo: Int32, from: Int64, to: Int64,
                               calculate: Calculate = serial,
                               on connection: PostgresConnection) throws -> Outcome {
        let clock = ContinuousClock()
        var timings = ChunkPhaseTimings()
        var mark = clock.now
        func lap() -> Duration { let now = clock.now; defer { mark = now }; return now - mark }
        guard let run = try PayrollRun.fetch(tenantId: tenantId, runId: runId, keyShare: true, on: connection) else {
            throw PayrollStoreError(.notFound, "run \(runId) does not exist in tenant \(tenantId)")
        }
        if let reason = skipReason(run, version: version) {
            return Outcome(employees: 0, failures: [], warnings: 0, finalizedRun: false, skippedReason: reason)
        }
        let chunk = try ChunkLoader.load(run: run, selection: .range(from: from, to: to), on: connection)
        timings.load = lap()
        timings.shiftsLoaded = chunk.shiftsLoaded
        let computed = compute(chunk, calculate: calculate)
        timings.compute = lap()
        try PayslipWriter.write(computed, run: run, on: connection)
        timings.write = lap()
        let finalized = try RunFinalizer.completeChunk(tenantId: tenantId, runId: runId, chunkNo: chunkNo,
                                                       phases: (timings, mark), on: connection)
        timings.finish = lap()
        var failures: [(Int64, PayrollError)] = []
        var warnings = 0
        for p in computed {
            switch p.result {
            case .success(let slip): warnings += slip.warnings.count
            case .failure(let error): failures.append((p.employeeId, error))
            }
        }
        return Outcome(employees: computed.count, failures: failures, warnings: warnings, finalizedRun: finalized, skippedReason: nil,
                       timings: timings)
    }

    static func skipReason(_ run: PayrollRun, version: Int32) -> String? {
        if run.status.isClosed { return "run \(run.id) is \(run.status.rawValue)" }
        if run.version != version { return "run \(run.id) is at version \(run.version), the job was planned for version \(version)" }
        if run.status == .planned { return "run \(run.id) is not planned yet" }
        return nil
    }

    /// Computes the valid inputs of `chunk` with `calculate`; invalid ones keep their load error.
    public static func compute(_ chunk: LoadedChunk, calculate: Calculate) -> [ComputedPayslip] {
        computeParts([chunk], calculate: calculate)[0]
    }

    /// `compute` for the parts of a packed job, with one `calculate` call over all their valid
    /// inputs: one array of results per chunk, in its employees' order. The employees are read in
    /// place by index (`for e in employees` copied each one whole, with every array and text of
    /// its input, just to look at it): the one copy of an input left is the element of the
    /// calculator's array; `computeParts(takingInputsOf:calculate:)` spares that one too.
    public static func computeParts(_ chunks: [LoadedChunk], calculate: Calculate) -> [[ComputedPayslip]] {
        var inputs: [PayrollInput] = []
        var valid: [Bool] = []
        let total = chunks.reduce(0) { $0 + $1.employees.count }
        inputs.reserveCapacity(total)
        valid.reserveCapacity(total)
        for c in chunks.indices {
            chunks[c].employees.withUnsafeBufferPointer { employees in
                for j in employees.indices {
                    if case .success(let input) = employees[j].input {
                        inputs.append(input)
                        valid.append(true)
                    } else {
                        valid.append(false)
                    }
                }
            }
        }
        return distribute(calculate: calculate, inputs: &inputs, valid: valid, chunks: chunks).payslips
    }

    /// `computeParts(_:calculate:)` without copying any input: each valid input is moved out of
    /// its chunk into the calculator's array (its slot in the chunk left holding a payload-free
    /// error, `movedOutInput`), and freed after the calculation. For a caller that no longer needs
    /// the inputs (a chunk job: it keeps the chunks for their runs, ids, digests and counts). Each
    /// copy of an input retained and released every array and text of it once more.
    public static func computeParts(takingInputsOf chunks: inout [LoadedChunk], calculate: Calculate) -> [[ComputedPayslip]] {
        computePartsTallied(takingInputsOf: &chunks, calculate: calculate).payslips
    }

    /// What `computePartsTallied` returns: the payslips per part, and what it counted of them
    /// while it held each one (so nothing reads a payslip again to count it).
    struct ComputedParts {
        var payslips: [[ComputedPayslip]]
        /// Per part, in its employees' order (`WrittenChunkResult(_:tally:)`).
        var tallies: [PayslipTally]
        /// Every employee with an error, in part and employee order.
        var failures: [(employeeId: Int64, error: PayrollError)]
    }

    /// `computeParts(takingInputsOf:calculate:)`, with the parts' tallies and failures.
    static func computePartsTallied(takingInputsOf chunks: inout [LoadedChunk], calculate: Calculate) -> ComputedParts {
        var inputs: [PayrollInput] = []
        var valid: [Bool] = []
        let total = chunks.reduce(0) { $0 + $1.employees.count }
        inputs.reserveCapacity(total)
        valid.reserveCapacity(total)
        for c in chunks.indices {
            chunks[c].employees.withUnsafeMutableBufferPointer { employees in
                for j in employees.indices {
                    // Moved out (swap: no retain or release), the placeholder left in its place; a
                    // load error is put back.
                    var taken = Result<PayrollInput, PayrollError>.failure(movedOutInput)
                    swap(&taken, &employees[j].input)
                    switch consume taken {
                    case .success(let input):
                        inputs.append(input)
                        valid.append(true)
                    case .failure(let error):
                        employees[j].input = .failure(error)
                        valid.append(false)
                    }
                }
            }
        }
        return distribute(calculate: calculate, inputs: &inputs, valid: valid, chunks: chunks)
    }

    /// Initializes the uninitialized `slot` as `ComputedPayslip(employeeId:result:inputDigest:)`
    /// with the payload-free placeholder as its result, field by field in place.
    @inline(__always)
    private static func initializePlaceholder(_ slot: UnsafeMutablePointer<ComputedPayslip>, employeeId: Int64,
                                              inputDigest: [UInt8]?) {
        let raw = UnsafeMutableRawPointer(slot)
        (raw + MemoryLayout<ComputedPayslip>.offset(of: \.employeeId)!).initializeMemory(as: Int64.self, repeating: employeeId, count: 1)
        (raw + MemoryLayout<ComputedPayslip>.offset(of: \.result)!).initializeMemory(
            as: Result<Payslip, PayrollError>.self, repeating: .failure(movedOutPlaceholder), count: 1)
        (raw + MemoryLayout<ComputedPayslip>.offset(of: \.inputDigest)!).initializeMemory(as: [UInt8]?.self, repeating: inputDigest, count: 1)
    }

    /// The calculation and the results' distribution of `computeParts`: `inputs` (emptied once
    /// computed) are the valid employees' of `chunks`, in order, `valid` says which employees
    /// those are; each result is moved out of the calculator's array into its part, in input order
    /// (a copy retained every array and text of the payslip once more, released with the array),
    /// counted into its part's tally where it lies; each moved-out slot is left holding a
    /// payload-free placeholder (swapped), so the array frees nothing twice. An invalid employee's
    /// result is its load error.
    private static func distribute(calculate: Calculate, inputs: inout [PayrollInput], valid: [Bool],
                                   chunks: [LoadedChunk]) -> ComputedParts {
        var results = calculate(inputs)
        precondition(results.count == inputs.count, "the calculator returned \(results.count) results for \(inputs.count) inputs")
        inputs = []
        var parts = ComputedParts(payslips: [], tallies: [], failures: [])
        parts.payslips.reserveCapacity(chunks.count)
        parts.tallies.reserveCapacity(chunks.count)
        results.withUnsafeMutableBufferPointer { results in
            var next = 0
            var k = 0
            for c in chunks.indices {
                chunks[c].employees.withUnsafeBufferPointer { employees in
                    var tally = PayslipTally()
                    // Built in place: each payslip is moved once, from the results into its slot.
                    let computed = [ComputedPayslip](unsafeUninitializedCapacity: employees.count) { slots, initialized in
                        for j in employees.indices {
                            let slot = slots.baseAddress.unsafelyUnwrapped + j
                            if valid[k] {
                                // Present: one result per valid input (checked above). The slot is
                                // made with the placeholder, then the result swapped in (a
                                // `ComputedPayslip` made with the result and stored was copied
                                // into the slot, then destroyed).
                                precondition(next < results.count, "one result per valid input")
                                // The slot's fields initialized one by one: a whole `ComputedPayslip`
                                // built and passed to `initialize(to:)` was copied (outlined copy and
                                // destroy of the payslip) and moved by `memcpy` once more.
                                initializePlaceholder(slot, employeeId: employees[j].employeeId,
                                                      inputDigest: employees[j].inputDigest)
                                swap(&slot.pointee.result, &results[next])
                                next += 1
                            } else if case .failure(let error) = employees[j].input {
                                slot.initialize(to: ComputedPayslip(employeeId: employees[j].employeeId, result: .failure(error),
                                                                    inputDigest: employees[j].inputDigest))
                            } else {
                                preconditionFailure("an employee without a result is one whose input failed")
                            }
                            k += 1
                            // Counted where it now lies, with nothing else written meanwhile (binding
                            // the result to count it before it was stored, or appending a failure
                            // here, copied the payslip).
                            switch slot.pointee.result {
                            case .success(let slip): tally.add(slip)
                            case .failure: tally.failed += 1
                            }
                            initialized = j + 1
                        }
                    }
                    if tally.failed > 0 {
                        for p in computed.indices {
                            if case .failure(let error) = computed[p].result { parts.failures.append((computed[p].employeeId, error)) }
                        }
                    }
                    parts.payslips.append(computed)
                    parts.tallies.append(tally)
                }
            }
            precondition(next == results.count, "every result was taken")
        }
        return parts
    }

    /// What a result slot of `computeParts` holds once its result was moved out: an error with
    /// empty texts (no storage to retain or release).
    private static let movedOutPlaceholder = PayrollError(.unsupported, "")

    /// What a chunk's employee holds once `computeParts(takingInputsOf:calculate:)` moved its input
    /// out: an error with no storage to retain or release, saying so.
    private static let movedOutInput = PayrollError(.unsupported, "input taken")
}
