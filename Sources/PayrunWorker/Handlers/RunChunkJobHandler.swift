import JobQueue
import PayrollEngine
import PayrollStore
import PostgresClient

/// `run.chunk` `{"runId", "version", "chunk", "from", "to"}`: loads the chunk by COPY, computes it
/// with `BatchCalculator` (DispatchQueue.concurrentPerform), stores payslips (a direct COPY on a
/// first calculation, an upsert on a rerun: `PayslipWriter`), marks the chunk finished
/// (the last one finalizes the run), and completes the job — all in one transaction, fenced by
/// the lease. Each chunk's phase timings end up in `run_chunks` (migration 0010).
///
/// `run.chunk` `{"parts": [{"runId", "version", "chunk", "from", "to"}, …]}` (packed by
/// `RunPlanner.planMany`): the parts of several runs in one transaction with the statements of
/// one chunk (`ChunkProcessor.processParts`); a part of a closed or replanned run is skipped.
///
/// The commit does not wait for the WAL flush (`ChunkCommit.async`, the default; `payrun worker
/// --chunk-commit sync` waits): `SET LOCAL synchronous_commit = off` with the transaction's BEGIN,
/// so the job thread starts its next job instead of idling through the flush (8–13 ms a job at
/// 100,000 employees; half of the machine's idle time in a month-end). What this gives up is
/// PostgreSQL's async-commit window, nothing of consistency: a server crash may lose the chunk
/// jobs committed in the last moments before it (at most three `wal_writer_delay`s, 0.6 s by
/// default) — each such transaction whole (payslips, `run_chunks` row, run counters or
/// finalization, job completion); the job is then still `running` under its claim, which was
/// committed synchronously, and the lease rescue runs it again: the same inputs give the same
/// payslips. Nothing durable can depend on a lost chunk: a transaction that saw its effects and
/// waits for its own flush (an approval, a recalculation request, a correction) commits after it
/// in WAL order, so that flush writes the chunk's commit first. Recalculation jobs, planning and
/// claims keep the server's setting.
struct RunChunkJobHandler: JobHandler {
    var commit: ChunkCommit = .async

    var kinds: [String] { [PayrollJobKind.chunk] }

    func handle(_ job: ClaimedJob, context: JobContext) throws {
        let payload = try JobPayload(job)
        if let parts = try Self.parts(payload) {
            try handleParts(job, parts: parts, context: context)
            return
        }
        let runId = try payload.int("runId"), version = try payload.int("version"), chunk = try payload.int("chunk")
        let from = try payload.int("from"), to = try payload.int("to")
        guard let versionValue = Int32(exactly: version), let chunkValue = Int32(exactly: chunk), from <= to else {
            throw JobFailure.permanent("run.chunk job \(job.id): bad version/chunk/range in \(job.payload)")
        }
        let outcome = try completingInTransaction(job, context: context) { c in
            try ChunkProcessor.process(
                tenantId: job.tenantId, runId: runId, version: versionValue, chunkNo: chunkValue, from: from, to: to,
                calculate: { BatchCalculator.calculate($0) }, on: c)
        }
        context.recordEmployeesComputed(outcome.employees)
        if let reason = outcome.skippedReason {
            context.logger.notice("chunk skipped: \(reason)", metadata: ["run": "\(runId)", "chunk": "\(chunk)"])
            return
        }
        for failure in outcome.failures {
            context.logger.warning("employee failed: \(failure.error)", metadata: [
                "run": "\(runId)", "employee": "\(failure.employeeId)", "field": "\(failure.error.field ?? "")",
            ])
        }
        context.logger.debug("chunk phases", metadata: [
            "run": "\(runId)", "chunk": "\(chunk)", "employees": "\(outcome.employees)",
            "load_ms": "\(outcome.timings.load.wholeMilliseconds)", "compute_ms": "\(outcome.timings.compute.wholeMilliseconds)",
            "write_ms": "\(outcome.timings.write.wholeMilliseconds)", "finish_ms": "\(outcome.timings.finish.wholeMilliseconds)",
        ])
        context.logger.info("chunk stored", metadata: [
            "run": "\(runId)", "chunk": "\(chunk)", "employees": "\(outcome.employees)", "failed": "\(outcome.failures.count)",
            "finalized": "\(outcome.finalizedRun)",
        ])
    }

    /// The chunk job ran out of attempts: its run cannot finish, so it is marked `failed` with the
    /// job and its last error (RunFailure), in the transaction that fails the job. A successful
    /// `payrun jobs retry` of the job later finalizes the run as usual.
    func onFinalFailure(_ job: ClaimedJob, error: String, context: JobContext) throws {
        let payload = try JobPayload(job)
        if let parts = try Self.parts(payload) {
            try context.scopeToTenant(context.connection)
            var seen = Set<Int64>()
            for part in parts.sorted(by: { $0.runId < $1.runId }) where seen.insert(part.runId).inserted {
                if try RunFailure.markFailed(tenantId: job.tenantId, runId: part.runId, version: part.version, jobId: job.id,
                                             jobKind: job.kind, lastError: error, on: context.connection) {
                    context.logger.error("run failed: chunk job \(job.id) failed for good", metadata: ["run": "\(part.runId)"])
                }
            }
            return
        }
        let runId = try payload.int("runId")
        guard let version = Int32(exactly: try payload.int("version")) else { return }
        try context.scopeToTenant(context.connection)
        if try RunFailure.markFailed(tenantId: job.tenantId, runId: runId, version: version, jobId: job.id,
                                     jobKind: job.kind, lastError: error, on: context.connection) {
            context.logger.error("run failed: chunk job \(job.id) failed for good", metadata: ["run": "\(runId)"])
        }
    }
}

extension RunChunkJobHandler {
    /// The parts of a packed payload, or nil for the single-chunk payload.
    static func parts(_ payload: JobPayload) throws -> [ChunkProcessor.PartRequest]? {
        guard let objects = try payload.optionalObjects("parts") else { return nil }
        if objects.isEmpty { throw JobFailure.permanent("run.chunk job \(payload.job.id): no parts in \(payload.job.payload.prefix(200))") }
        return try objects.map { o in
            let version = try payload.int("version", in: o), chunk = try payload.int("chunk", in: o)
            let from = try payload.int("from", in: o), to = try payload.int("to", in: o)
            guard let versionValue = Int32(exactly: version), let chunkValue = Int32(exactly: chunk), from <= to else {
                throw JobFailure.permanent("run.chunk job \(payload.job.id): bad version/chunk/range in \(payload.job.payload.prefix(200))")
            }
            return ChunkProcessor.PartRequest(runId: try payload.int("runId", in: o), version: versionValue, chunkNo: chunkValue,
                                              from: from, to: to)
        }
    }

    /// Runs `body` in one transaction with the job's tenant set (`BEGIN` and the tenant in one round
    /// trip: `JobContext.tenantTransaction`) and completes the job in it (fenced by the lease), so
    /// the payslips and the completion commit together. A finished chunk is committed even when
    /// the worker is stopping; a lost lease cannot commit anyway. A run or workplace that does not
    /// exist fails the job for good. With `commit == .async` the commit does not wait for the WAL
    /// flush (`ChunkCommit`).
    private func completingInTransaction<T>(_ job: ClaimedJob, context: JobContext,
                                            _ body: (PostgresConnection) throws -> T) throws -> T {
        // The commit setting is made with BEGIN (one round trip); it only matters at COMMIT.
        try context.tenantTransaction(settingLocally: commit == .async ? [(name: "synchronous_commit", value: "off")] : []) { c in
            do {
                let outcome = try body(c)
                if context.leaseLost { throw JobFailure.retryable("lease lost before commit") }
                try context.complete(on: c)
                return outcome
            } catch let error as PayrollStoreError where error.kind == .notFound || error.kind == .invalidRequest {
                throw JobFailure.permanent(error.description)
            }
        }
    }

    func handleParts(_ job: ClaimedJob, parts: [ChunkProcessor.PartRequest], context: JobContext) throws {
        let outcome = try completingInTransaction(job, context: context) { c in
            try ChunkProcessor.processParts(tenantId: job.tenantId, parts: parts,
                                            calculate: { BatchCalculator.calculate($0) }, on: c)
        }
        context.recordEmployeesComputed(outcome.employees)
        for skipped in outcome.skipped {
            context.logger.notice("chunk part skipped: \(skipped.reason)", metadata: ["run": "\(skipped.runId)", "chunk": "\(skipped.chunkNo)"])
        }
        for failure in outcome.failures {
            context.logger.warning("employee failed: \(failure.error)", metadata: [
                "employee": "\(failure.employeeId)", "field": "\(failure.error.field ?? "")",
            ])
        }
        context.logger.debug("chunk phases", metadata: [
            "parts": "\(outcome.partsDone)", "employees": "\(outcome.employees)",
            "load_ms": "\(outcome.timings.load.wholeMilliseconds)", "compute_ms": "\(outcome.timings.compute.wholeMilliseconds)",
            "write_ms": "\(outcome.timings.write.wholeMilliseconds)", "finish_ms": "\(outcome.timings.finish.wholeMilliseconds)",
        ])
        context.logger.info("chunk parts stored", metadata: [
            "parts": "\(outcome.partsDone)", "skipped": "\(outcome.skipped.count)", "employees": "\(outcome.employees)",
            "failed": "\(outcome.failures.count)", "finalized": "\(outcome.finalizedRunIds.count)",
        ])
    }
}

/// How a month-end chunk job commits (`RunChunkJobHandler`, `payrun worker --chunk-commit`).
public enum ChunkCommit: String, Sendable, CaseIterable {
    /// `SET LOCAL synchronous_commit = off`: the commit does not wait for the WAL flush.
    case async
    /// The server's `synchronous_commit` (with its default `on`, the commit waits for the flush).
    case sync
}
