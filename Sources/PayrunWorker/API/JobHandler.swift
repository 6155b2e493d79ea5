import JobQueue

/// Does the work of one or more job kinds.
///
/// Contract: do the work on `context.connection` and, in ONE transaction, write the results and
/// call `try context.complete(on: connection)` (or `JobQueue.complete(context.job, on:)`; fenced by
/// the lease: if it throws `JobQueueError.leaseLost` the transaction rolls back and nothing of this
/// attempt commits). Completing through the context in a `PostgresConnection.transaction` of
/// `context.connection` spares the pool a read of the job's row after `handle` returns.
/// Throwing from `handle` makes the pool record a failed attempt (retried with backoff unless
/// the error is `JobFailure.permanent`). Returning without completing the job is a bug: the pool
/// fails the attempt with a message saying so.
public protocol JobHandler: Sendable {
    /// Job kinds this handler takes (e.g. `["run.chunk"]`).
    var kinds: [String] { get }
    func handle(_ job: ClaimedJob, context: JobContext) throws
    /// Called by the pool when `job` has failed for good (`FailOutcome.failed`: attempts used up,
    /// or a permanent failure), inside the transaction that marks the job `failed`, on
    /// `context.connection` (call `context.scopeToTenant` first if row-level security applies).
    /// `error` is the last attempt's error. Throwing rolls the hook back; the job is still failed.
    /// Default: nothing.
    func onFinalFailure(_ job: ClaimedJob, error: String, context: JobContext) throws
}

extension JobHandler {
    public func onFinalFailure(_ job: ClaimedJob, error: String, context: JobContext) throws {}
}

/// An error a handler throws to say how its failure should be treated.
public enum JobFailure: Error, CustomStringConvertible {
    /// Retrying cannot help (bad payload, missing run): the job is `failed` at once.
    case permanent(String)
    /// Worth retrying after the backoff (the default for any other error as well).
    case retryable(String)

    public var description: String {
        switch self {
        case .permanent(let message): return "permanent failure: \(message)"
        case .retryable(let message): return message
        }
    }
}
