import Foundation
import JobQueue
import PostgresClient

/// Diagnostics job kind `system.sleep`, handled by every worker: payload `{"ms": N}`
/// (0…600,000). Sleeps N ms — ignoring shutdown and lost leases on purpose — then, in one
/// transaction, writes a row to `payrun.diagnostic_job_effects` (job, worker, attempt, lease
/// token) and completes the job. A worker that lost its lease meanwhile fails to complete, so its
/// row rolls back: the table shows whose effect committed. Used by the reliability tests; handy
/// to check a deployment end to end (`payrun jobs` shows it, the table records it).
public struct SleepJobHandler: JobHandler {
    public static let kind = "system.sleep"
    public var kinds: [String] { [Self.kind] }

    public init() {}

    static let insertEffectSQL = """
        INSERT INTO payrun.diagnostic_job_effects (job_id, worker_id, attempt, lease_token) VALUES ($1, $2, $3, $4::uuid)
        """

    public func handle(_ job: ClaimedJob, context: JobContext) throws {
        let object = try? JSONSerialization.jsonObject(with: Data(job.payload.utf8)) as? [String: Any]
        guard let milliseconds = (object?["ms"] as? NSNumber)?.intValue, (0...600_000).contains(milliseconds) else {
            throw JobFailure.permanent("system.sleep needs payload {\"ms\": 0...600000}, got \(job.payload)")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(milliseconds))
        while clock.now < deadline {
            let left = clock.now.duration(to: deadline)
            let leftMicroseconds = left.components.seconds * 1_000_000 + left.components.attoseconds / 1_000_000_000_000
            usleep(UInt32(max(1, min(50_000, leftMicroseconds))))
        }
        try context.connection.transaction { connection in
            try connection.execute(Self.insertEffectSQL, [
                .int(job.id), .text(context.workerId), .int(job.attempt), .text(job.leaseToken),
            ])
            try context.complete(on: connection)
        }
    }
}
