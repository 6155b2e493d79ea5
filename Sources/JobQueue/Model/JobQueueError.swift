import PostgresClient

/// Errors of `JobQueue` operations besides database errors (`PostgresError`).
public enum JobQueueError: Error, Equatable, CustomStringConvertible {
    /// The job no longer carries this worker's lease token (the lease expired and was rescued,
    /// the job was cancelled, or another worker holds it). Nothing this worker writes in the
    /// same transaction may commit.
    case leaseLost(jobId: Int64)
    /// No job with this id.
    case notFound(Int64)
    /// The operation does not apply to a job in this state (e.g. retrying a running job).
    case invalidState(jobId: Int64, state: String, operation: String)
    /// Retrying would make a second pending job with the same dedup key; that one will do the work.
    case duplicatePending(jobId: Int64, pendingJobId: Int64)
    /// A `NewJob` or argument the queue refuses before asking the database.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .leaseLost(let id): return "job \(id): lease lost (expired, rescued, cancelled or taken over); nothing committed"
        case .notFound(let id): return "job \(id) not found"
        case .invalidState(let id, let state, let operation): return "job \(id) is \(state): cannot \(operation) it"
        case .duplicatePending(let id, let pending):
            return "job \(id): job \(pending) with the same dedup key is already pending"
        case .invalidArgument(let message): return message
        }
    }
}
