import JobQueue
import PayrollStore

/// `run.plan` `{"runId": R}`: plans the run into chunk jobs (RunPlanner) and completes, in one transaction.
struct RunPlanJobHandler: JobHandler {
    let chunkEmployeesMax: Int
    var kinds: [String] { [PayrollJobKind.plan] }

    func handle(_ job: ClaimedJob, context: JobContext) throws {
        let runId = try JobPayload(job).int("runId")
        let outcome = try context.connection.transaction { c in
            try context.scopeToTenant(c)
            do {
                let outcome = try RunPlanner.plan(tenantId: job.tenantId, runId: runId, chunkEmployeesMax: chunkEmployeesMax, on: c)
                try JobQueue.complete(job, on: c)
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

    /// The plan job ran out of attempts: the run is marked `failed` with the job and its last error
    /// (RunFailure), in the transaction that fails the job. A successful retry of the job plans it.
    func onFinalFailure(_ job: ClaimedJob, error: String, context: JobContext) throws {
        let runId = try JobPayload(job).int("runId")
        try context.scopeToTenant(context.connection)
        if try RunFailure.markFailed(tenantId: job.tenantId, runId: runId, version: nil, jobId: job.id,
                                     jobKind: job.kind, lastError: error, on: context.connection) {
            context.logger.error("run failed: plan job \(job.id) failed for good", metadata: ["run": "\(runId)"])
        }
    }
}
