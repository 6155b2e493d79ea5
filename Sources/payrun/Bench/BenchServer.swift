import Foundation
import PostgresClient

/// The PostgreSQL server `payrun bench` works on: the one `--database-url` / `DATABASE_URL` names
/// (the role needs CREATEDB: the bench creates its own databases there), else the private cluster
/// `.pg-bench` next to `ops/`, started with durable settings and stopped again at the end if the
/// bench started it.
final class BenchServer {
    /// Connection string of the server (its database is only used to create the bench databases).
    let adminURL: String
    private let cluster: PrivateCluster?
    private let startedCluster: Bool
    private let keepCluster: Bool

    private init(adminURL: String, cluster: PrivateCluster?, startedCluster: Bool, keepCluster: Bool) {
        self.adminURL = adminURL
        self.cluster = cluster
        self.startedCluster = startedCluster
        self.keepCluster = keepCluster
    }

    static func open(databaseURL: String?, keepCluster: Bool, log: (String) -> Void) throws -> BenchServer {
        if let given = databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"], !given.isEmpty {
            log("using the server at \(DatabaseOptions.redacted(given))")
            return BenchServer(adminURL: given, cluster: nil, startedCluster: false, keepCluster: true)
        }
        guard var found = PrivateCluster.locate(directoryName: ".pg-bench") else {
            throw CommandFailure("no DATABASE_URL and no ops/pg found above the executable or the current directory")
        }
        found.fast = false
        let wasRunning = (try found.run("status")).status == 0
        log("starting the private PostgreSQL cluster (\(found.directory), durable settings)…")
        let (status, output) = try found.run("start")
        guard status == 0, let admin = output.split(separator: "\n").last.map(String.init), !admin.isEmpty else {
            throw CommandFailure("ops/pg start failed (exit \(status)); try PAYRUN_PG_DIR=\(found.directory) \(found.script) start")
        }
        return BenchServer(adminURL: admin, cluster: found, startedCluster: !wasRunning, keepCluster: keepCluster)
    }

    /// The URL of database `name` on this server.
    func url(database name: String) -> String { PostgresConnectionString.replacingDatabase(in: adminURL, with: name) }

    /// Stops the private cluster if this bench started it (and was not asked to keep it).
    func close(log: (String) -> Void) {
        guard let cluster, startedCluster, !keepCluster else { return }
        _ = try? cluster.run("stop")
        log("stopped the private cluster")
    }
}
