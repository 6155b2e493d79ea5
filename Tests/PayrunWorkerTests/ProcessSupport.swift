import Foundation
import Testing

/// The built `payrun` executable, found next to the test bundle like Tests/PayrunCLITests does
/// (`$PAYRUN_BINARY` first, then beside the running test executable, then `<root>/.build/debug`).
enum PayrunProcess {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func locate() -> URL? {
        let fm = FileManager.default
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["PAYRUN_BINARY"], !env.isEmpty {
            candidates.append(URL(fileURLWithPath: env))
        }
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(sibling(of: URL(fileURLWithPath: exe)))
        }
        if let exe = Bundle.main.executableURL { candidates.append(sibling(of: exe)) }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/payrun"))
        return candidates.first { fm.isExecutableFile(atPath: $0.path) }
    }

    private static func sibling(of url: URL) -> URL {
        var dir = url.deletingLastPathComponent()
        while dir.path.contains(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("payrun")
    }

    /// A running `payrun worker`, its stderr captured in a file.
    final class Worker {
        let process = Process()
        let logURL: URL

        init(binary: URL, databaseURL: String, workerId: String, extra: [String] = []) throws {
            logURL = FileManager.default.temporaryDirectory.appendingPathComponent("payrun-worker-\(workerId)-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
            process.executableURL = binary
            process.arguments = ["worker", "--database-url", databaseURL, "--worker-id", workerId, "--threads", "1",
                                 "--lease-seconds", "2", "--heartbeat-seconds", "1", "--poll-seconds", "1",
                                 "--grace-seconds", "1", "--log-level", "info"] + extra
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: logURL)
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }
        var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

        /// SIGTERM, then the exit status (nil if it did not exit within `seconds`; then SIGKILL).
        func terminate(within seconds: Int = 10) -> Int32? {
            kill(pid, SIGCONT)
            kill(pid, SIGTERM)
            let deadline = Date(timeIntervalSinceNow: TimeInterval(seconds))
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning {
                kill(pid, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            return process.terminationStatus
        }

        deinit {
            if process.isRunning { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(at: logURL)
        }
    }
}

/// A private PostgreSQL cluster of one test, via ops/pg, that the test may stop and start.
final class PrivateCluster {
    let directory: String
    private(set) var url = ""

    init() throws {
        directory = "/tmp/payrun-restart-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        url = try run("start")
    }

    /// Runs `ops/pg <command>` through popen (Foundation's Process can hang waiting for a
    /// command that left a daemon behind); returns the last line of its stdout.
    @discardableResult
    func run(_ command: String) throws -> String {
        let script = PayrunProcess.packageRoot.appendingPathComponent("ops/pg").path
        let line = "PAYRUN_PG_DIR='\(directory)' PAYRUN_PG_FAST=1 '\(script)' \(command) 2>/dev/null"
        guard let pipe = popen(line, "r") else { throw ClusterError(message: "popen failed") }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let status = pclose(pipe)
        guard status == 0 else { throw ClusterError(message: "ops/pg \(command) exited with status \(status)") }
        return output.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// Stops and deletes the cluster; a failure is recorded against the test, not swallowed (a
    /// cluster left running in /tmp outlives the test run).
    func remove() {
        do { try run("remove") } catch {
            Issue.record("the private cluster \(directory) was not removed: \(error)")
        }
    }

    struct ClusterError: Error { let message: String }
}
