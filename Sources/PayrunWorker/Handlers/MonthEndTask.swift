import PayrollRules
import PayrollStore
import PostgresClient

/// The periodic month-end scheduler (`MonthEndScheduler.tick`): every minute on the leader
/// worker, creates each workplace's due month-end runs with their plan jobs, catching up missed
/// months. Idempotent, so leadership moving between workers cannot duplicate a run.
enum MonthEndTask {
    /// `today` defaults to the server's date in Korea (tests pass a fixed one).
    static func task(intervalSeconds: Int = 60,
                     today: @escaping @Sendable (PostgresConnection) throws -> LocalDate = { try MonthEndScheduler.koreaToday(on: $0) })
        -> PeriodicTask {
        PeriodicTask(name: "month-end", intervalSeconds: intervalSeconds) { connection in
            let today = try today(connection)
            _ = try MonthEndScheduler.tick(today: today, on: connection)
        }
    }
}
