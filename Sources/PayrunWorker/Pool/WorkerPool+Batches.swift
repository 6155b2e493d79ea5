import JobQueue
import PostgresClient

/// Batches (see `BatchJobHandler`): a job thread holding one job of a batching kind claims more of
/// the same kind and tenant with one statement and runs them as one `BatchJobExecution`.
extension WorkerPool {
    /// `first` is in flight on this job thread (its entry is removed by the caller); the jobs added
    /// here are in flight until the batch is done and counted in `batchExtras`, so the claimer
    /// still sees this thread as one busy thread.
    func runBatch(first: ClaimedJob, flags: JobFlags, handler: any BatchJobHandler, connection: PostgresConnection, role: String) {
        let limit = handler.batchSize
        var batch: [(job: ClaimedJob, flags: JobFlags)] = [(first, flags)]
        // Only the queue tops the batch up, not the inbox: the inbox's jobs are for the other
        // threads, which top up their own batches in parallel (SKIP LOCKED keeps them disjoint).
        if batch.count < limit && !isStopping {
            do {
                let more = try JobQueue.claim(on: connection, workerId: configuration.workerId, limit: limit - batch.count,
                                              leaseSeconds: configuration.leaseSeconds, kind: first.kind, tenantId: first.tenantId)
                for job in more { metrics.claimed(kind: job.kind) }
                state.withLock {
                    for job in more {
                        let jobFlags = JobFlags(shutdown: state.stopping)
                        state.inFlight[job.id] = (job, jobFlags)
                        state.batchExtras += 1
                        batch.append((job, jobFlags))
                    }
                }
            } catch {
                // Topping up is optional: run what we hold. (A claim whose reply was lost leaves
                // leases that expire and are rescued.)
                if Reconnect.isConnectionLoss(error, connection: connection) {
                    guard Reconnect.restore(connection, logger: logger, role: role, keepTrying: { !self.isFinished }) else { return }
                } else {
                    logger.warning("could not top up a batch", metadata: ["kind": "\(first.kind)", "error": "\(error)"])
                }
            }
        }
        BatchJobExecution(pool: self, connection: connection, jobs: batch, handler: handler, role: role).run()
        // A full batch says more jobs of its kind are likely due. Wake the claimer (it LISTENs): its
        // last claim may have come back empty only because this batch's top-up held the rows it
        // wanted (SKIP LOCKED), and it would otherwise sleep until the poll interval.
        if batch.count >= limit {
            _ = try? connection.execute("SELECT pg_notify($1, $2)", [.text(JobQueue.notificationChannel), .text(first.kind)])
        }
        state.withLock {
            for entry in batch.dropFirst() {
                state.inFlight.removeValue(forKey: entry.job.id)
                state.batchExtras -= 1
            }
            state.condition.broadcast()
        }
    }
}
