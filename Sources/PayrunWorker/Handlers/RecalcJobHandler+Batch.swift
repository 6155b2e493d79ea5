import JobQueue
import Logging
import PayrollEngine
import PayrollStore

/// `employee.recalc` in batches: up to `batchSize` jobs of one tenant recomputed in ONE transaction
/// (`BatchRecalculation`: one lookup, one set of COPYs per run, `BatchCalculator`, one payslip
/// write and one totals update per run) and completed by one fenced statement in it.
///
/// Per job, the same semantics as one job at a time: an employee that does not exist fails only
/// its own job, permanently (nothing written for it); bad data gives that employee a payslip
/// error; an approved run records a pending correction; the rest of the batch goes on. A job whose
/// lease was lost (flagged by a heartbeat, or missing from the completion statement's result) is
/// left out: the transaction rolls back and the batch is redone without it, so neither its
/// payslip nor its completion commits.
extension RecalcJobHandler: BatchJobHandler {
    /// Thrown inside the batch transaction to roll it back when jobs lost their leases.
    struct LeasesLost: Error { let jobIds: Set<Int64> }

    func handleBatch(_ jobs: [ClaimedJob], context: BatchJobContext) throws -> [Int64: BatchJobResult] {
        var results: [Int64: BatchJobResult] = [:]
        var work: [(job: ClaimedJob, request: BatchRecalculation.Request)] = []
        for job in jobs {
            if context.leaseLost(job.id) { results[job.id] = .leaseLost; continue }
            do {
                let payload = try JobPayload(job)
                work.append((job, BatchRecalculation.Request(employeeId: try payload.int("employeeId"),
                                                             periodStart: try payload.date("periodStart"),
                                                             reason: payload.optionalString("reason"))))
            } catch let failure as JobFailure {
                results[job.id] = .failed(failure)
            }
        }
        guard let tenantId = jobs.first?.tenantId else { return results }
        precondition(jobs.allSatisfy { $0.tenantId == tenantId }, "a recalculation batch spans one tenant")
        while !work.isEmpty {
            let batch = work
            let outcomes: [Recalculation.Outcome]
            do {
                outcomes = try context.connection.transaction { c in
                    try TenantScope.set(tenantId, on: c)
                    let outcomes = try BatchRecalculation.run(tenantId: tenantId, requests: batch.map(\.request),
                                                              calculate: { BatchCalculator.calculate($0) }, on: c)
                    var completing: [ClaimedJob] = []
                    for (entry, outcome) in zip(batch, outcomes) {
                        if case .employeeNotFound = outcome { continue }
                        completing.append(entry.job)
                    }
                    let held = try JobQueue.completeHeld(completing, on: c)
                    let lost = Set(completing.map(\.id)).subtracting(held)
                    if !lost.isEmpty { throw LeasesLost(jobIds: lost) }
                    return outcomes
                }
            } catch let lost as LeasesLost {
                for id in lost.jobIds { results[id] = .leaseLost }
                work.removeAll { lost.jobIds.contains($0.job.id) }
                context.logger.warning("leases lost in a batch; redoing it without them", metadata: ["jobs": "\(lost.jobIds.sorted())"])
                continue
            }
            var computed = 0
            for (entry, outcome) in zip(batch, outcomes) {
                let employeeId = entry.request.employeeId
                let metadata: Logger.Metadata = ["job": "\(entry.job.id)", "employee": "\(employeeId)",
                                                 "period": "\(entry.request.periodStart)"]
                switch outcome {
                case .employeeNotFound:
                    results[entry.job.id] = .failed(.permanent("employee \(employeeId) does not exist in tenant \(tenantId)"))
                    continue
                case .replaced(_, .success):
                    computed += 1
                case .replaced(let runId, .failure(let error)):
                    computed += 1
                    context.logger.warning("employee failed: \(error)", metadata: metadata.merging(["run": "\(runId)"]) { $1 })
                case .pendingCorrection(let runId):
                    context.logger.notice("run \(runId) is approved (locked): recorded as a pending correction for a correction run",
                                          metadata: metadata)
                case .noRun:
                    context.logger.notice("no open run covers this employee-period; the month-end run will compute it", metadata: metadata)
                }
                results[entry.job.id] = .completed
            }
            context.recordEmployeesComputed(computed)
            work = []
        }
        return results
    }
}
