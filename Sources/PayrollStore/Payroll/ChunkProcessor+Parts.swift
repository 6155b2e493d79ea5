import PayrollRules
import PostgresClient

/// A packed chunk job (`run.chunk` `{"parts": […]}`, `RunPlanner.planMany`): the parts of several
/// runs computed in the caller's transaction (the job's, tenant set) with the statements of one:
/// the runs read `FOR KEY SHARE` in run-id order; each part checked as `process` checks a chunk (a
/// part of a closed or replanned run is skipped, the others go on); the active parts loaded
/// together (`ChunkLoader.loadParts`, one load per period), computed with one `calculate` call,
/// their payslips written with one COPY (`PayslipWriter.write(runs:)`) after the parts' chunk
/// locks were taken; then every part's `run_chunks` row is marked finished (with its timings,
/// `finish_us` included) and the runs' rows locked with one statement
/// (`RunFinalizer.markPartsFinished`, with the totals summed here on the direct-COPY path), and the
/// runs' chunk counts advanced and the runs whose last part was here finalized with another
/// (`RunFinalizer.countAndFinalize`, which writes no `run_chunks` row).
///
/// Phase timings: load, compute and write are measured for the whole job and apportioned to the
/// parts by their employees (rounded down); `shifts_loaded` is each part's own; `finish_us` is the
/// job's completion of all parts in the worker (the written totals and digests, the statement's
/// arrays) up to the completion statement that stores it, apportioned like the others. The two
/// completion statements themselves are not in it (they were until session 7, when a second
/// UPDATE of every part's row stored it after them): their time is in the job's duration.
extension ChunkProcessor {
    /// One part of a packed job, as its payload lists it.
    public struct PartRequest: Sendable, Hashable {
        public var runId: Int64
        public var version: Int32
        public var chunkNo: Int32
        public var from: Int64
        public var to: Int64

        public init(runId: Int64, version: Int32, chunkNo: Int32, from: Int64, to: Int64) {
            self.runId = runId
            self.version = version
            self.chunkNo = chunkNo
            self.from = from
            self.to = to
        }
    }

    public struct PartsOutcome: Sendable {
        public var employees = 0
        public var failures: [(employeeId: Int64, error: PayrollError)] = []
        public var warnings = 0
        /// Parts computed and finished.
        public var partsDone = 0
        /// Parts whose chunk totals and digest were the worker's sums of what it wrote (direct COPY or plain insert from column arrays),
        /// not read back from the stored payslips (`RunFinalizer.completeChunks`).
        public var partsSummedInWorker = 0
        /// Runs this job finalized (their last part was here).
        public var finalizedRunIds: [Int64] = []
        /// Parts skipped, with the reason.
        public var skipped: [(runId: Int64, chunkNo: Int32, reason: String)] = []
        /// The whole job's phases.
        public var timings = ChunkPhaseTimings()
    }

    public static func processParts(tenantId: Int64, parts: [PartRequest], calculate: Calculate = serial,
                                    on connection: PostgresConnection) throws -> PartsOutcome {
        let clock = ContinuousClock()
        var outcome = PartsOutcome()
        var mark = clock.now
        func lap() -> Duration { let now = clock.now; defer { mark = now }; return now - mark }
        var listed = Set<[Int64]>()
        for part in parts where !listed.insert([part.runId, Int64(part.chunkNo)]).inserted {
            throw PayrollStoreError(.invalidRequest, "chunk \(part.chunkNo) of run \(part.runId) is listed twice in one job")
        }
        let runIds = Array(Set(parts.map(\.runId))).sorted()
        let runs = try connection.queryPrepared("""
            SELECT \(PayrollRun.columns) FROM payrun.payroll_runs WHERE tenant_id = $1 AND id = ANY($2) ORDER BY id FOR KEY SHARE
            """, [.int(tenantId), .int64Array(runIds)]).map { try PayrollRun(row: $0) }
        let runById = Dictionary(runs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var active: [(request: PartRequest, run: PayrollRun)] = []
        for part in parts {
            guard let run = runById[part.runId] else {
                throw PayrollStoreError(.notFound, "run \(part.runId) does not exist in tenant \(tenantId)")
            }
            if let reason = skipReason(run, version: part.version) {
                outcome.skipped.append((part.runId, part.chunkNo, reason))
            } else {
                active.append((part, run))
            }
        }
        if active.isEmpty { return outcome }

        // Load per period (a planned job has one), keeping the parts' order.
        var loaded = [LoadedChunk?](repeating: nil, count: active.count)
        let periods = Dictionary(grouping: active.indices) { "\(active[$0].run.periodStart)/\(active[$0].run.periodEnd)" }
        for key in periods.keys.sorted() {
            guard let indices = periods[key] else { continue }
            let chunks = try ChunkLoader.loadParts(
                indices.map { ChunkLoader.PartSelection(run: active[$0].run, from: active[$0].request.from, to: active[$0].request.to) },
                on: connection)
            for (n, i) in indices.enumerated() { loaded[i] = chunks[n] }
        }
        // `loaded` consumed: each chunk's employees are then referenced by `chunks` alone, and
        // `computePartsTallied` takes their inputs without copying the arrays.
        var chunks = (consume loaded).compactMap { $0 }
        precondition(chunks.count == active.count, "every active part was loaded")
        outcome.timings.load = lap()
        outcome.timings.shiftsLoaded = chunks.reduce(0) { $0 + $1.shiftsLoaded }

        // One calculator call over every part's employees, their inputs moved (not copied) into
        // it; the payslips counted and summed while they are moved into their parts.
        let tallied = computePartsTallied(takingInputsOf: &chunks, calculate: calculate)
        let computed = tallied.payslips
        let computedCount = computed.reduce(0) { $0 + $1.count }
        outcome.timings.compute = lap()

        // The parts' chunk locks, exclusively, before the write (RunFinalizer.completeChunks): then
        // what a direct COPY (or a plain insert from column arrays) wrote is each chunk's whole content,
        // summed here, not read back.
        try RunFinalizer.lockChunksExclusively(chunks: active.map { ($0.request.runId, $0.request.chunkNo) }, on: connection)
        let written = try PayslipWriter.write(runs: active.indices.map { (active[$0].run, computed[$0]) },
                                              on: connection)
        outcome.timings.write = lap()

        // Finish every part with two statements (RunFinalizer.completeChunks), finalizing the runs
        // whose last part this was.
        let totalEmployees = max(computedCount, 1)
        var completions = active.indices.map { i -> RunFinalizer.PartCompletion in
            let share = chunks[i].employees.count
            var completion = RunFinalizer.PartCompletion(
                runId: active[i].request.runId, chunkNo: active[i].request.chunkNo,
                loadMicros: (outcome.timings.load * share / totalEmployees).wholeMicroseconds,
                computeMicros: (outcome.timings.compute * share / totalEmployees).wholeMicroseconds,
                writeMicros: (outcome.timings.write * share / totalEmployees).wholeMicroseconds,
                shiftsLoaded: chunks[i].shiftsLoaded)
            if written.path.storedExactlyTheRowsSent { completion.written = WrittenChunkResult(computed[i], tally: tallied.tallies[i]) }
            return completion
        }
        // finish_us: the finish phase up to the completion statement, which stores it with the rest
        // of the part's row (one UPDATE of each row, not two).
        let finishedBefore = lap()
        for i in completions.indices {
            completions[i].finishMicros = (finishedBefore * chunks[i].employees.count / totalEmployees).wholeMicroseconds
        }
        let marked = try RunFinalizer.markPartsFinished(tenantId: tenantId, parts: completions, chunksLocked: true, on: connection)
        outcome.partsSummedInWorker = marked.writtenUsed
        outcome.finalizedRunIds = try RunFinalizer.countAndFinalize(
            tenantId: tenantId, firstFinished: marked.firstFinished, finishTimes: [], on: connection)
        outcome.timings.finish = finishedBefore + lap()
        outcome.partsDone = active.count
        // From the tallies: reading the payslips again copied each one.
        outcome.warnings = tallied.tallies.reduce(0) { $0 + Int($1.warnings) }
        outcome.failures = tallied.failures
        outcome.employees = computedCount
        return outcome
    }
}
