import JobQueue
import PayrollStore

/// `employee.recalc` `{"employeeId", "periodStart", "reason"}` (from `payrun.enqueue_recalculation`):
/// recomputes one employee-period and replaces its payslip in the open run, in one transaction with
/// the job's completion. On an approved run the request becomes a pending correction (logged).
/// The pool runs these jobs in batches of up to `batchSize` (`handleBatch`, RecalcJobHandler+Batch).
struct RecalcJobHandler: JobHandler {
    var kinds: [String] { [PayrollJobKind.recalc] }
    /// Most recalculations of one tenant handled in one transaction (1: one job per transaction).
    var batchSize = RecalcJobHandler.batchSizeDefault
    static let batchSizeDefault = 64

    func handle(_ job: ClaimedJob, context: JobContext) throws {
        let payload = try JobPayload(job)
        let employeeId = try payload.int("employeeId")
        let periodStart = try payload.date("periodStart")
        let outcome = try context.tenantTransaction { c in
            let outcome = try Recalculation.run(tenantId: job.tenantId, employeeId: employeeId, periodStart: periodStart,
                                                reason: payload.optionalString("reason"), on: c)
            if case .employeeNotFound = outcome {
                throw JobFailure.permanent("employee \(employeeId) does not exist in tenant \(job.tenantId)")
            }
            try context.complete(on: c)
            return outcome
        }
        let metadata: [String: String] = ["employee": "\(employeeId)", "period": "\(periodStart)"]
        switch outcome {
        case .replaced(let runId, .success):
            context.recordEmployeesComputed(1)
            context.logger.debug("payslip replaced", metadata: ["run": "\(runId)", "employee": "\(employeeId)"])
        case .replaced(let runId, .failure(let error)):
            context.recordEmployeesComputed(1)
            context.logger.warning("employee failed: \(error)", metadata: ["run": "\(runId)", "employee": "\(employeeId)"])
        case .pendingCorrection(let runId):
            context.logger.notice("run \(runId) is approved (locked): recorded as a pending correction for a correction run",
                                  metadata: metadata.mapValues { .string($0) })
        case .noRun:
            context.logger.notice("no open run covers this employee-period; the month-end run will compute it",
                                  metadata: metadata.mapValues { .string($0) })
        case .employeeNotFound:
            break
        }
    }
}
