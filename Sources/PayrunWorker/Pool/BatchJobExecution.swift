import Foundation
import JobQueue
import Logging
import PostgresClient

/// One attempt of a batch of jobs (one kind, one tenant) on a job thread: run the batch handler,
/// then record each job's outcome — completed by the handler, lease lost, or failed here (fenced
/// by its lease, through `JobExecution.fail`, with the handler's final-failure hook).
struct BatchJobExecution {
    let pool: WorkerPool
    let connection: PostgresConnection
    let jobs: [(job: ClaimedJob, flags: JobFlags)]
    let handler: any BatchJobHandler
    let role: String

    func run() {
        guard let first = jobs.first?.job else { return }
        var logger = pool.logger
        logger[metadataKey: "kind"] = "\(first.kind)"
        logger[metadataKey: "tenant"] = "\(first.tenantId)"
        logger[metadataKey: "batch"] = "\(jobs.count)"
        let metrics = pool.metrics
        let clock = ContinuousClock()
        let started = clock.now
        var flags: [Int64: JobFlags] = [:]
        for entry in jobs { flags[entry.job.id] = entry.flags }
        let context = BatchJobContext(connection: connection, jobs: jobs.map(\.job), flags: flags, logger: logger,
                                      workerId: pool.configuration.workerId, metrics: metrics)
        var results: [Int64: BatchJobResult]
        do {
            results = try handler.handleBatch(jobs.map(\.job), context: context)
            if connection.isInTransaction { try connection.execute("ROLLBACK") }
        } catch {
            if Reconnect.isConnectionLoss(error, connection: connection) {
                logger.warning("connection lost during a batch", metadata: ["error": "\(error)"])
                guard Reconnect.restore(connection, logger: logger, role: role, keepTrying: { !pool.isFinished }) else { return }
                results = [:]
                for entry in jobs { results[entry.job.id] = .failed(.retryable("connection to PostgreSQL lost: \(error)")) }
            } else {
                if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
                let failure = (error as? JobFailure) ?? .retryable(String(describing: error))
                results = [:]
                for entry in jobs { results[entry.job.id] = .failed(failure) }
            }
        }
        let elapsed = started.duration(to: clock.now)
        var completed = 0
        for (job, jobFlags) in jobs {
            metrics.recordDuration(kind: job.kind, elapsed)
            let execution = JobExecution(pool: pool, connection: connection, job: job, flags: jobFlags, role: role)
            let jobLogger = pool.jobLogger(job)
            let hook = (handler: handler as any JobHandler,
                        context: JobContext(connection: connection, job: job, logger: jobLogger, workerId: pool.configuration.workerId,
                                            flags: jobFlags, metrics: metrics))
            switch results[job.id] {
            case .completed?:
                metrics.completed(kind: job.kind)
                completed += 1
            case .leaseLost?:
                metrics.leaseLost(kind: job.kind)
                jobLogger.warning("lease lost before completion: this job was left out of its batch's commit")
            case .failed(.permanent(let message))?:
                execution.fail(message, retryable: false, logger: jobLogger, hook: hook)
            case .failed(.retryable(let message))?:
                execution.fail(message, retryable: true, logger: jobLogger, hook: hook)
            case nil:
                execution.fail("batch handler for \(job.kind) returned no result for this job (a bug in the handler)",
                               retryable: false, logger: jobLogger, hook: hook)
            }
        }
        logger.debug("batch done", metadata: [
            "completed": "\(completed)",
            "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
        ])
    }
}
