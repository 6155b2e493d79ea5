import Foundation
import PayrollStore
import PostgresClient

/// Follows payroll runs until each has settled (calculated, with errors, failed, approved or
/// cancelled), showing one progress line on a terminal (`TerminalProgress`: stderr, TTY only):
/// runs settled, employees computed of planned, chunks done.
enum RunWaiter {
    struct Watched: Hashable {
        var tenantId: Int64
        var runId: Int64
    }

    static let settled: Set<PayrollRunStatus> = [.calculated, .calculatedWithErrors, .failed, .approved, .cancelled]

    /// Polls every `pollMilliseconds` until every run settled; returns the runs as they ended.
    /// Throws `CommandFailure` after `timeoutSeconds` (0: no limit).
    static func wait(for runs: [Watched], timeoutSeconds: Int, pollMilliseconds: Int = 200, label: String,
                     on connection: PostgresConnection) throws -> [PayrollRun] {
        let progress = TerminalProgress()
        defer { progress.finish() }
        let clock = ContinuousClock()
        let deadline = timeoutSeconds > 0 ? clock.now.advanced(by: .seconds(timeoutSeconds)) : nil
        let byTenant = Dictionary(grouping: runs, by: \.tenantId)
        while true {
            var current: [PayrollRun] = []
            for (tenant, watched) in byTenant.sorted(by: { $0.key < $1.key }) {
                let ids = Set(watched.map(\.runId))
                current += try PayrollCommandSupport.inTenant(tenant, connection) { c in
                    try watched.compactMap { try PayrollRun.fetch(tenantId: tenant, runId: $0.runId, on: c) }.filter { ids.contains($0.id) }
                }
            }
            let done = current.filter { settled.contains($0.status) }.count
            let employeesDone = current.reduce(0) { $0 + Int($1.employeesDone) + Int($1.employeesFailed) }
            let employeesTotal = current.reduce(0) { $0 + Int($1.employeesTotal) }
            let chunksDone = current.reduce(0) { $0 + Int($1.chunksDone) }, chunksTotal = current.reduce(0) { $0 + Int($1.chunksTotal) }
            progress.update("\(label): runs \(done)/\(runs.count) settled, employees \(employeesDone)/\(employeesTotal), chunks \(chunksDone)/\(chunksTotal)")
            if done == runs.count { return current.sorted { $0.id < $1.id } }
            if current.count < runs.count {
                throw CommandFailure("\(runs.count - current.count) run(s) vanished while waiting")
            }
            if let deadline, clock.now >= deadline {
                throw CommandFailure("\(runs.count - done) of \(runs.count) run(s) not settled within \(timeoutSeconds) s (is a `payrun worker` running?)")
            }
            Thread.sleep(forTimeInterval: Double(pollMilliseconds) / 1000)
        }
    }

    /// One line per settled run, for stdout.
    static func line(_ run: PayrollRun) -> String {
        "run \(run.id) (tenant \(run.tenantId), workplace \(run.workplaceId)): \(run.status.rawValue), "
            + "employees \(run.employeesDone + run.employeesFailed)/\(run.employeesTotal) (\(run.employeesFailed) failed), "
            + "net \(PayrollCommandSupport.won(run.netWon))"
    }
}
