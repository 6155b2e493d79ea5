import Foundation
import JobQueue

/// Shared state of a `WorkerPool`, guarded by one condition variable. Every field is read and
/// written with `condition` locked (hence `@unchecked Sendable`).
final class PoolState: @unchecked Sendable {
    let condition = NSCondition()

    /// stop() was called: claim nothing more, start nothing more.
    var stopping = false
    /// Every job thread has exited (or was abandoned after the grace period).
    var finished = false
    /// Claimed, not yet started.
    var inbox: [ClaimedJob] = []
    /// Running in a job thread.
    var inFlight: [Int64: (job: ClaimedJob, flags: JobFlags)] = [:]
    /// Jobs in `inFlight` beyond the first of their batch (`WorkerPool.runBatch`): in-flight jobs
    /// minus this is the number of busy job threads.
    var batchExtras = 0
    /// Job threads still in their loop.
    var liveJobThreads = 0

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}
