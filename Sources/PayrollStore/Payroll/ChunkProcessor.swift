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
                               stagingKey: StagingKey, calculate: Calculate = serial,
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
        try PayslipWriter.write(computed, run: run, stagingKey: stagingKey, on: connection)
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
    /// inputs: one array of results per chunk, in its employees' order. Nothing is copied twice:
    /// the employees are not gathered into one chunk first, and the per-part arrays are built
    /// directly (no slices of one array), which spared a retain and a release of every
    /// employee's input, digest and payslip per copy. The employees are read in place by index
    /// (`for e in employees` copied each one whole, with every array and text of its input, just
    /// to look at it): the one copy of an input left is the element of the calculator's array.
    public static func computeParts(_ chunks: [LoadedChunk], calculate: Calculate) -> [[ComputedPayslip]] {
        var total = 0
        for c in chunks.indices { total += chunks[c].employees.count }
        var inputs: [PayrollInput] = []
        inputs.reserveCapacity(total)
        for c in chunks.indices {
            chunks[c].employees.withUnsafeBufferPointer { employees in
                for j in employees.indices {
                    if case .success(let input) = employees[j].input { inputs.append(input) }
                }
            }
        }
        var results = calculate(inputs)
        precondition(results.count == inputs.count, "the calculator returned \(results.count) results for \(inputs.count) inputs")
        inputs = []
        // Each result is moved out of `results` into its part, in input order (a copy retained
        // every array and text of the payslip once more, released with `results`). The moved-out
        // slots are then filled with a payload-free placeholder, so `results` frees nothing twice.
        var parts: [[ComputedPayslip]] = []
        parts.reserveCapacity(chunks.count)
        results.withUnsafeMutableBufferPointer { results in
            var next = 0
            for c in chunks.indices {
                chunks[c].employees.withUnsafeBufferPointer { employees in
                    var computed: [ComputedPayslip] = []
                    computed.reserveCapacity(employees.count)
                    for j in employees.indices {
                        let result: Result<Payslip, PayrollError>
                        switch employees[j].input {
                        case .success:
                            // Present: one result per valid input (checked above).
                            precondition(next < results.count, "one result per valid input")
                            result = (results.baseAddress.unsafelyUnwrapped + next).move()
                            next += 1
                        case .failure(let error):
                            result = .failure(error)
                        }
                        computed.append(ComputedPayslip(employeeId: employees[j].employeeId, result: result,
                                                        inputDigest: employees[j].inputDigest))
                    }
                    parts.append(computed)
                }
            }
            precondition(next == results.count, "every result was taken")
            if let base = results.baseAddress, next > 0 {
                base.initialize(repeating: .failure(movedOutPlaceholder), count: next)
            }
        }
        return parts
    }

    /// What a result slot of `computeParts` holds once its result was moved out: an error with
    /// empty texts (no storage to retain or release).
    private static let movedOutPlaceholder = PayrollError(.unsupported, "")
}
