import PostgresClient

/// The job queue on `payrun.jobs`: static functions taking the caller's connection, so every
/// operation runs inside whatever transaction the caller has open (enqueue together with the
/// change that needs the job; complete together with the job's results).
///
/// Life of a job: `pending` → (claim) `running` → `succeeded` | back to `pending` after a
/// retryable failure, an expired lease or a release | `failed` after the last attempt or a
/// permanent failure | `cancelled`. Every failed attempt's error is kept in `errors`.
///
/// Each SQL statement is a named constant next to the function that runs it.
public enum JobQueue {
    /// `LISTEN`/`NOTIFY` channel: `enqueue` (and `payrun.enqueue_recalculation`) notify it with
    /// the job kind as payload; delivered when the enqueueing transaction commits.
    public static let notificationChannel = "payrun_jobs"

    /// The states of `payrun.jobs.state`.
    public static let states = ["pending", "running", "succeeded", "failed", "cancelled"]
}
