import Foundation

/// The private PostgreSQL cluster of `ops/pg`, for `payrun demo` on a machine without a database.
struct PrivateCluster {
    let script: String
    let directory: String
    /// `PAYRUN_PG_FAST=1` (fsync and synchronous_commit off) when the server starts: fine for the
    /// demo; `payrun bench` measures with durable settings.
    var fast = true

    /// Finds `ops/pg` above the executable or the current directory; the cluster lives in
    /// `directoryName` next to `ops/`.
    static func locate(directoryName: String = ".pg-demo") -> PrivateCluster? {
        var starts: [URL] = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent())
        for start in starts {
            var dir = start
            for _ in 0..<8 {
                let candidate = dir.appendingPathComponent("ops/pg").path
                if FileManager.default.isExecutableFile(atPath: candidate) {
                    return PrivateCluster(script: candidate, directory: dir.appendingPathComponent(directoryName).path)
                }
                dir.deleteLastPathComponent()
            }
        }
        return nil
    }

    /// Runs `ops/pg <command>` through `system()` (Foundation's Process waits on descriptors the
    /// server that `start` daemonizes inherits, and would never return); returns the exit status and
    /// stdout (collected in a file). stderr passes through when `verbose`.
    @discardableResult
    func run(_ command: String, verbose: Bool = false) throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("payrun-ops-pg-\(getpid())-\(command).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let line = "PAYRUN_PG_DIR=\(Self.quoted(directory)) PAYRUN_PG_FAST=\(fast ? 1 : 0) \(Self.quoted(script)) \(command) >\(Self.quoted(outputPath))"
            + (verbose ? "" : " 2>/dev/null") + " </dev/null"
        let status = system(line)
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        let exitCode: Int32 = status == -1 ? -1 : (status >> 8) & 0xFF
        return (exitCode, String(decoding: data, as: UTF8.self))
    }

    static func quoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

}
