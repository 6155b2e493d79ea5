import JobQueue
import PayrollStore

/// `run.plan` `{"runIds": [R, …]}` (a tenant's month-end: RunPlanner.planMany packs the runs' parts
/// into shared chunk jobs) or `{"runId": R}` (one run, RunPlanner.plan): plans and completes, in
/// one transaction.
struct RunPlanJobHandler: JobHandler {
    let chunkEmployeesMax: Int
    var kinds: [String] { [PayrollJobKind.plan] }

    func handle(_ job: ClaimedJob, context: JobContext) throws {
        let payload = try JobPayload(job)
        if let runIds = try payload.optionalInts("runIds") {
            let outcome = try context.tenantTransaction { c in
                let outcome = try RunPlanner.planMany(tenantId: job.tenantId, runIds: runIds, chunkEmployeesMax: chunkEmployeesMax, on: c)
                try context.complete(on: c)
                return outcome
            }
            for skipped in outcome.skipped {
                context.logger.notice("run not planned: \(skipped.reason)", metadata: ["run": "\(skipped.runId)"])
            }
            context.logger.info("runs planned", metadata: [
                "runs": "\(outcome.plannedRunIds.count)", "jobs": "\(outcome.jobs.count)", "employees": "\(outcome.employees)",
            ])
            return
        }
        let runId = try payload.int("runId")
        let outcome = try context.tenantTransaction { c in
            do {
                let outcome = try RunPlanner.plan(tenantId: job.tenantId, runId: runId, chunkEmployeesMax: chunkEmployeesMax, on: c)
                try context.complete(on: c)
                return outcome
            } catch let error as PayrollStoreError where error.kind == .notFound {
                throw JobFailure.permanent(error.description)
            }
        }
        switch outcome {
        case .planned(let chunks, let employees):
            context.logger.info("run planned", metadata: ["run": "\(runId)", "chunks": "\(chunks)", "employees": "\(employees)"])
        case .skipped(let reason):
            context.logger.notice("run not planned: \(reason)", metadata: ["run": "\(runId)"])
        }
    }

    /// The plan job ran out of attempts: its runs are marked `failed` with the job and its last
    /// error (RunFailure), in the transaction that fails the job. A successful retry of the job plans them.
    func onFinalFailure(_ job: ClaimedJob, error: String, context: JobContext) throws {
        let payload = try JobPayload(job)
        let runIds = try payload.optionalInts("runIds") ?? [try payload.int("runId")]
        try context.scopeToTenant(context.connection)
        for runId in runIds.sorted() {
            if try RunFailure.markFailed(tenantId: job.tenantId, runId: runId, version: nil, jobId: job.id,
                                         jobKind: job.kind, lastError: error, on: context.connection) {
                context.logger.error("run failed: plan job \(job.id) failed for good", metadata: ["run": "\(runId)"])
            }
        }
    }
}
