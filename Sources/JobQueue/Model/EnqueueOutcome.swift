/// What `JobQueue.enqueue` did.
public enum EnqueueOutcome: Sendable, Equatable {
    /// A new pending job with this id.
    case inserted(Int64)
    /// A pending job with the same dedup key already existed; this is its id. Its `run_at` was
    /// moved earlier if the new request was due sooner.
    case deduplicated(Int64)

    /// The job's id either way.
    public var jobId: Int64 {
        switch self {
        case .inserted(let id), .deduplicated(let id): return id
        }
    }
}
