import PostgresClient
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh, empty database for one test suite (or one test), in a test cluster:
///
/// - if `PAYRUN_TEST_DATABASE_URL` is set, in that server (its user needs `CREATEDB`);
/// - otherwise in a private cluster under `<repo>/.pg-test`, started once per test process with
///   `ops/pg start` (`PAYRUN_PG_FAST=1`: fsync off) and stopped at process exit if this process
///   started it (set `PAYRUN_TEST_KEEP_CLUSTER=1` to leave it running, e.g. when several test
///   processes share it).
///
/// Databases are dropped by `drop()`, and any left are dropped at process exit. Safe to call
/// from tests running in parallel; works as root (ops/pg runs the server as `payrun-pg`).
///
/// ```swift
/// let database = try TestDatabase.create("copy-roundtrip")
/// defer { database.drop() }
/// let connection = try database.connect()
/// ```
public struct TestDatabase: Sendable {
    /// The database name (`t_<hint>_<pid>_<n>`).
    public let name: String
    /// A libpq URL for this database (give it to `PostgresConnection(url:)` or as `DATABASE_URL`).
    public let url: String

    /// Creates a new empty database. `nameHint` becomes part of its name (letters, digits, `_`).
    public static func create(_ nameHint: String = "test") throws -> TestDatabase {
        try TestCluster.shared.createDatabase(hint: nameHint)
    }

    /// Opens a connection to this database.
    public func connect() throws(PostgresError) -> PostgresConnection {
        try PostgresConnection(url: url)
    }

    /// Drops the database (terminating connections still open to it). Errors are reported on
    /// stderr and otherwise ignored, so it fits in a `defer`.
    public func drop() {
        TestCluster.shared.dropDatabase(name)
    }

    /// URL of the cluster's maintenance database (`postgres`), for tests that need to act on
    /// the server itself (create roles, terminate backends). Starts the cluster if needed.
    public static func serverURL() throws -> String {
        try TestCluster.shared.adminURL()
    }
}

/// An error setting up the test cluster.
public struct TestDatabaseError: Error, CustomStringConvertible {
    public let description: String
}

/// Process-wide state of the test cluster; all access goes through one lock.
final class TestCluster: Sendable {
    static let shared = TestCluster()

    struct State {
        var adminURL: String?
        var startedPrivateCluster = false
        var databases: Set<String> = []
        var serial = 0
        var exitHookInstalled = false
    }

    private let state = Mutex(State())

    /// `<repo>` from this file's path: `<repo>/Tests/PostgresTestSupport/TestDatabase.swift`.
    static let repositoryRoot: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static let privateClusterDirectory = repositoryRoot + "/.pg-test"

    func adminURL() throws -> String {
        try state.withLock { state throws -> String in try Self.ensureCluster(&state) }
    }

    func createDatabase(hint: String) throws -> TestDatabase {
        try state.withLock { state throws -> TestDatabase in
            let admin = try Self.ensureCluster(&state)
            state.serial += 1
            let name = "t_\(Self.sanitized(hint))_\(getpid())_\(state.serial)"
            let connection = try PostgresConnection(url: admin)
            defer { connection.close() }
            // A name we built from [a-z0-9_] only, so quoting is enough.
            try connection.execute("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
            var attempt = 0
            while true {
                do {
                    try connection.execute("CREATE DATABASE \"\(name)\"")
                    break
                } catch let error as PostgresError where error.sqlState == "55006" && attempt < 20 {
                    // template1 briefly in use by another CREATE DATABASE: wait and retry.
                    attempt += 1
                    usleep(100_000)
                }
            }
            state.databases.insert(name)
            return TestDatabase(name: name, url: PostgresConnectionString.replacingDatabase(in: admin, with: name))
        }
    }

    func dropDatabase(_ name: String) {
        state.withLock { state in
            guard let admin = state.adminURL else { return }
            Self.drop(name, adminURL: admin)
            state.databases.remove(name)
        }
    }

    static func drop(_ name: String, adminURL: String) {
        do {
            let connection = try PostgresConnection(url: adminURL)
            defer { connection.close() }
            try connection.execute("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
        } catch {
            printToStandardError("TestDatabase: could not drop \(name): \(error)")
        }
    }

    /// Starts (or finds) the cluster once; returns the admin URL.
    private static func ensureCluster(_ state: inout State) throws -> String {
        if let url = state.adminURL { return url }
        let url: String
        if let given = getenv("PAYRUN_TEST_DATABASE_URL"), given.pointee != 0 {
            url = String(cString: given)
        } else {
            let wasRunning = runOpsPG("status", capture: false).status == 0
            let (status, output) = runOpsPG("start", capture: true)
            guard status == 0, let line = output.split(separator: "\n").last, !line.isEmpty else {
                throw TestDatabaseError(description: "ops/pg start failed (exit \(status)); see stderr")
            }
            url = String(line)
            state.startedPrivateCluster = !wasRunning
        }
        state.adminURL = url
        if !state.exitHookInstalled {
            state.exitHookInstalled = true
            atexit { TestCluster.shared.cleanUpAtExit() }
        }
        return url
    }

    /// Drops leftover databases; stops the private cluster if this process started it.
    func cleanUpAtExit() {
        let snapshot = state.withLock { state -> State in
            let copy = state
            state.databases = []
            return copy
        }
        guard let admin = snapshot.adminURL else { return }
        for name in snapshot.databases { Self.drop(name, adminURL: admin) }
        if snapshot.startedPrivateCluster, getenv("PAYRUN_TEST_KEEP_CLUSTER") == nil {
            _ = Self.runOpsPG("stop", capture: false)
        }
    }

    /// Runs `ops/pg <command>` for the private test cluster; returns exit status and stdout.
    static func runOpsPG(_ command: String, capture: Bool) -> (status: Int32, output: String) {
        let script = shellQuoted(repositoryRoot + "/ops/pg")
        let line = "PAYRUN_PG_DIR=\(shellQuoted(privateClusterDirectory)) PAYRUN_PG_FAST=1 \(script) \(command)"
            + (capture ? "" : " >/dev/null 2>&1")
        guard let pipe = popen(line, "r") else { return (-1, "") }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let status = pclose(pipe)
        let exitCode = (status >> 8) & 0xFF
        return (status == -1 ? -1 : exitCode, output)
    }

    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    static func sanitized(_ hint: String) -> String {
        var name = ""
        for scalar in hint.lowercased().unicodeScalars {
            if name.count >= 24 { break }
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                name.unicodeScalars.append(scalar)
            } else if !name.hasSuffix("_") {
                name += "_"
            }
        }
        return name.isEmpty ? "test" : name
    }

}

/// Writes a line to file descriptor 2 (the C `stderr` global is not concurrency-safe in Swift 6).
func printToStandardError(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
