import Foundation
import JobQueue
import PostgresClient

/// Follows one job until it is finished, showing its state on a terminal (`TerminalProgress`:
/// stderr, TTY only), then prints the outcome; a failed or cancelled job is a `CommandFailure`.
enum JobWaiter {
    static func wait(jobId: Int64, timeoutSeconds: Int, pollMilliseconds: Int = 100, on connection: PostgresConnection) throws {
        let progress = TerminalProgress()
        defer { progress.finish() }
        let clock = ContinuousClock()
        let deadline = timeoutSeconds > 0 ? clock.now.advanced(by: .seconds(timeoutSeconds)) : nil
        while true {
            let job = try JobQueue.show(id: jobId, on: connection)
            progress.update("job \(jobId) (\(job.kind)): \(job.state), attempt \(job.attempts)/\(job.maxAttempts)")
            switch job.state {
            case "succeeded":
                progress.finish()
                print("job \(jobId) succeeded (attempt \(job.attempts))")
                return
            case "failed", "cancelled":
                progress.finish()
                throw CommandFailure("job \(jobId) \(job.state): \(job.lastError ?? "no error recorded")")
            default:
                if let deadline, clock.now >= deadline {
                    throw CommandFailure("job \(jobId) is still \(job.state) after \(timeoutSeconds) s (is a `payrun worker` running?)")
                }
                Thread.sleep(forTimeInterval: Double(pollMilliseconds) / 1000)
            }
        }
    }
}
