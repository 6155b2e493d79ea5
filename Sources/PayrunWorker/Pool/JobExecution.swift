import Foundation
import JobQueue
import Logging
import PostgresClient

/// One attempt of one job on a job thread: run the handler, then make sure the attempt is
/// recorded — completed by the handler, or failed here (fenced by the lease either way).
struct JobExecution {
    let pool: WorkerPool
    let connection: PostgresConnection
    let job: ClaimedJob
    let flags: JobFlags
    let role: String

    static let leaseStateSQL = "SELECT state, lease_token IS NOT DISTINCT FROM $2::uuid FROM payrun.jobs WHERE id = $1"

    func run() {
        let logger = pool.jobLogger(job)
        let metrics = pool.metrics
        let clock = ContinuousClock()
        let started = clock.now
        defer { metrics.recordDuration(kind: job.kind, started.duration(to: clock.now)) }
        let context = JobContext(connection: connection, job: job, logger: logger, workerId: pool.configuration.workerId,
                                 flags: flags, metrics: metrics)
        guard let handler = pool.handlersByKind[job.kind] else {
            fail("no handler for job kind \(job.kind) in this worker", retryable: false, logger: logger)
            return
        }
        logger.debug("job started")
        do {
            try handler.handle(job, context: context)
            if connection.isInTransaction { try connection.execute("ROLLBACK") }
            // The handler completed the job (fenced) in a transaction that committed: it succeeded,
            // no need to read its row back.
            if context.completionCommitted {
                metrics.completed(kind: job.kind)
                logger.debug("job completed", metadata: ["ms": "\(Self.milliseconds(started.duration(to: clock.now)))"])
                return
            }
            guard let row = try connection.queryOnePrepared(Self.leaseStateSQL, [.int(job.id), .text(job.leaseToken)]) else {
                logger.error("job vanished while running")
                return
            }
            let state = try row.string(at: 0)
            let stillHeld = try row.bool(at: 1)
            if state == "succeeded" {
                metrics.completed(kind: job.kind)
                logger.debug("job completed", metadata: ["ms": "\(Self.milliseconds(started.duration(to: clock.now)))"])
            } else if state == "running" && stillHeld {
                fail("handler for \(job.kind) returned without completing the job (a bug in the handler)", retryable: false, logger: logger,
                     hook: (handler, context))
            } else {
                metrics.leaseLost(kind: job.kind)
                logger.warning("handler returned but the job is \(state) and no longer ours")
            }
        } catch JobQueueError.leaseLost {
            metrics.leaseLost(kind: job.kind)
            logger.warning("lease lost before completion: this attempt's results were rolled back")
        } catch {
            if Reconnect.isConnectionLoss(error, connection: connection) {
                logger.warning("connection lost during the job", metadata: ["error": "\(error)"])
                guard Reconnect.restore(connection, logger: logger, role: role, keepTrying: { !pool.isFinished }) else { return }
                fail("connection to PostgreSQL lost: \(error)", retryable: true, logger: logger, hook: (handler, context))
                return
            }
            if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
            if case JobFailure.permanent(let message) = error {
                fail(message, retryable: false, logger: logger, hook: (handler, context))
            } else {
                fail(String(describing: error), retryable: true, logger: logger, hook: (handler, context))
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// Records the failed attempt (fenced); retries once after a reconnect. When the job fails for
    /// good, `hook`'s handler gets `onFinalFailure` in the same transaction; if the hook throws, the
    /// transaction rolls back and the job is failed without it (logged).
    func fail(_ message: String, retryable: Bool, logger: Logger,
                      hook: (handler: any JobHandler, context: JobContext)? = nil) {
        var withHook = hook != nil
        for _ in 0..<3 {
            do {
                let outcome: FailOutcome
                if withHook, let hook {
                    do {
                        outcome = try connection.transaction { c in
                            let outcome = try JobQueue.fail(job, error: message, retryable: retryable, on: c,
                                                            backoff: pool.configuration.retryBackoff)
                            if outcome == .failed { try hook.handler.onFinalFailure(job, error: message, context: hook.context) }
                            return outcome
                        }
                    } catch where !(error is JobQueueError) && !Reconnect.isConnectionLoss(error, connection: connection) {
                        logger.error("the handler's final-failure hook failed; failing the job without it",
                                     metadata: ["error": "\(error)"])
                        withHook = false
                        continue
                    }
                } else {
                    outcome = try JobQueue.fail(job, error: message, retryable: retryable, on: connection,
                                                backoff: pool.configuration.retryBackoff)
                }
                pool.metrics.failed(kind: job.kind, final: outcome == .failed)
                switch outcome {
                case .failed: logger.error("job failed for good", metadata: ["error": "\(message)"])
                case .retryScheduled: logger.warning("job attempt failed; will retry", metadata: ["error": "\(message)"])
                case .superseded(let by): logger.warning("job attempt failed; superseded by pending job \(by)", metadata: ["error": "\(message)"])
                }
                return
            } catch JobQueueError.leaseLost {
                pool.metrics.leaseLost(kind: job.kind)
                logger.warning("job attempt failed but the lease was already lost; not recorded", metadata: ["error": "\(message)"])
                return
            } catch {
                if Reconnect.isConnectionLoss(error, connection: connection),
                   Reconnect.restore(connection, logger: logger, role: role, keepTrying: { !pool.isFinished }) {
                    continue
                }
                logger.error("could not record the failed attempt; the lease will expire and be rescued",
                             metadata: ["error": "\(error)"])
                return
            }
        }
    }
}
