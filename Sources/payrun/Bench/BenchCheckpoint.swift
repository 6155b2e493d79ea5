import PostgresClient

/// `CHECKPOINT` before each measured step of `payrun bench`, so that no step pays for writing out
/// what the step before it (or the store's preparation: truncation, VACUUM ANALYZE) left dirty in
/// shared buffers and WAL. Without it, the first series of session 3 measured the 1,000,000-employee
/// month-end at 36 % fewer employees/s than the next two, with the same load phase and longer write
/// and commit phases (benchmarks/RESULTS.md). Needs a superuser or the pg_checkpoint role;
/// elsewhere the bench says so and goes on.
enum BenchCheckpoint {
    /// Runs CHECKPOINT on `url`'s server; false (after logging why) if it was refused.
    @discardableResult
    static func run(url: String, before step: String, log: (String) -> Void) -> Bool {
        do {
            let connection = try PostgresConnection(url: url)
            defer { connection.close() }
            try connection.execute("CHECKPOINT")
            return true
        } catch {
            log("CHECKPOINT before \(step) not done (\(error)); the step may pay for earlier writes")
            return false
        }
    }
}
