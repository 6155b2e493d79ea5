import Foundation
import Testing

/// Finds and runs the built `payrun` executable for end-to-end tests.
///
/// `swift test` builds every target of the package, executables included, into the same products
/// directory as the test bundle (`.build/<triple>/debug/`), so the binary is found next to the
/// running test executable. Order of lookup:
/// 1. `$PAYRUN_BINARY`, when set (for CI layouts or a release build);
/// 2. `payrun` next to the running test executable (`/proc/self/exe`, `Bundle.main`, `argv[0]`);
/// 3. `<package root>/.build/debug/payrun`, the root derived from this file's path.
/// If none exists the test fails with a message saying to run `swift build` first.
enum PayrunBinary {
    static func locate() -> URL? {
        let fm = FileManager.default
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["PAYRUN_BINARY"], !env.isEmpty {
            candidates.append(URL(fileURLWithPath: env))
        }
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(siblingPayrun(of: URL(fileURLWithPath: exe)))
        }
        if let exe = Bundle.main.executableURL { candidates.append(siblingPayrun(of: exe)) }
        candidates.append(siblingPayrun(of: Bundle.main.bundleURL))
        if let arg0 = CommandLine.arguments.first {
            candidates.append(siblingPayrun(of: URL(fileURLWithPath: arg0).standardizedFileURL))
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/payrun"))
        return candidates.first { fm.isExecutableFile(atPath: $0.path) }
    }

    /// `…/debug/payrunPackageTests.xctest[/…]` → `…/debug/payrun`.
    private static func siblingPayrun(of url: URL) -> URL {
        var dir = url.deletingLastPathComponent()
        // Inside a bundle (macOS: payrunPackageTests.xctest/Contents/MacOS/…), climb out of it.
        while dir.path.contains(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.appendingPathComponent("payrun")
    }

    struct Run {
        var exitCode: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    /// Runs `payrun <arguments>` with `input` on stdin (via a temporary file, so large inputs cannot
    /// deadlock on a pipe) and returns its exit code and output.
    static func run(_ arguments: [String], input: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Run? {
        guard let binary = locate() else {
            Issue.record("payrun binary not found next to the test bundle or in .build/debug; run `swift build` (or set PAYRUN_BINARY)",
                         sourceLocation: sourceLocation)
            return nil
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("payrun-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inURL = dir.appendingPathComponent("in.jsonl"), outURL = dir.appendingPathComponent("out.jsonl")
        let errURL = dir.appendingPathComponent("err.txt")
        try Data(input.utf8).write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let stdin = try FileHandle(forReadingFrom: inURL)
        let stdout = try FileHandle(forWritingTo: outURL)
        let stderr = try FileHandle(forWritingTo: errURL)
        defer { try? stdin.close(); try? stdout.close(); try? stderr.close() }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        process.waitUntilExit()
        return Run(exitCode: process.terminationStatus,
                   stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                   stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Parses one output line as a JSON object.
    static func object(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any]? {
        guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            Issue.record("not a JSON object: \(line)", sourceLocation: sourceLocation)
            return nil
        }
        return o
    }

    /// An integer member (JSON numbers arrive as NSNumber).
    static func int(_ o: [String: Any]?, _ key: String) -> Int64? {
        (o?[key] as? NSNumber)?.int64Value
    }

    /// The `error` object of an error response.
    static func error(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> (code: String?, field: String?) {
        let e = object(line, sourceLocation: sourceLocation)?["error"] as? [String: Any]
        return (e?["code"] as? String, e?["field"] as? String)
    }
}
