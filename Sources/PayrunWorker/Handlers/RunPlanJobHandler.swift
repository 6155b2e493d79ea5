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
}
