import PayrollStore

/// The periodic month-end scheduler (`MonthEndScheduler.tick`): every minute on the leader
/// worker, creates each workplace's due month-end runs with their plan jobs, catching up missed
/// months. Idempotent, so leadership moving between workers cannot duplicate a run.
enum MonthEndTask {
    static func task(intervalSeconds: Int = 60) -> PeriodicTask {
        PeriodicTask(name: "month-end", intervalSeconds: intervalSeconds) { connection in
            let today = try MonthEndScheduler.koreaToday(on: connection)
            _ = try MonthEndScheduler.tick(today: today, on: connection)
        }
    }
}
