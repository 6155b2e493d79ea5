import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real `payrun worker` process, for crash tests. The binary is found next to the test bundle
/// (`swift test` builds it into the same directory), or at `$PAYRUN_BINARY`.
final class PayrunWorkerProcess {
    let process = Process()

    static func binary() -> URL? {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["PAYRUN_BINARY"], !env.isEmpty { candidates.append(URL(fileURLWithPath: env)) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
            while dir.path.contains(".xctest") { dir = dir.deletingLastPathComponent() }
            candidates.append(dir.appendingPathComponent("payrun"))
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/payrun"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    init(url: String, workerId: String, threads: Int = 2, environment: [String: String] = [:]) throws {
        guard let binary = Self.binary() else {
            throw PayrunWorkerProcessError(description: "payrun binary not found next to the test bundle; run `swift build` (or set PAYRUN_BINARY)")
        }
        process.executableURL = binary
        process.arguments = ["worker", "--database-url", url, "--threads", String(threads), "--lease-seconds", "2",
                             "--heartbeat-seconds", "1", "--poll-seconds", "1", "--grace-seconds", "2",
                             "--worker-id", workerId, "--log-level", "error"]
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "DATABASE_URL")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM and wait (graceful stop).
    func terminate() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

struct PayrunWorkerProcessError: Error, CustomStringConvertible {
    let description: String
}
