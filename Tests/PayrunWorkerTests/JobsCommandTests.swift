import Foundation
import JobQueue
import PostgresClient
import Testing

@Suite("payrun jobs")
struct JobsCommandTests {
    /// Runs `payrun <arguments>`; returns exit status and stdout+stderr.
    static func payrun(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let binary = try #require(PayrunProcess.locate(), "payrun binary not found; run `swift build`")
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("payrun-jobs-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outURL) }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let handle = try FileHandle(forWritingTo: outURL)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: outURL, encoding: .utf8)) ?? "")
    }

    @Test("enqueue, list, show, cancel, retry from the command line; errors exit 1 with a message")
    func commands() throws {
        let (database, connection) = try WorkerFixture.database("jobs_cli")
        defer { database.drop() }
        let url = ["--database-url", database.url]
        let enqueued = try Self.payrun(["jobs", "enqueue", "--kind", "system.sleep", "--tenant", "2", "--payload", #"{"ms": 1}"#] + url)
        #expect(enqueued.status == 0 && enqueued.output.hasPrefix("job "), "\(enqueued.output)")
        let id = try #require(try JobQueue.list(on: connection).first?.id)

        let list = try Self.payrun(["jobs", "list", "--state", "pending"] + url)
        #expect(list.status == 0)
        #expect(list.output.contains("system.sleep") && list.output.contains("queue: 1 due, 0 scheduled, 0 running"))

        let cancel = try Self.payrun(["jobs", "cancel", "\(id)", "--reason", "not today"] + url)
        #expect(cancel.status == 0 && cancel.output.contains("cancelled (was pending)"))
        let show = try Self.payrun(["jobs", "show", "\(id)"] + url)
        #expect(show.status == 0 && show.output.contains("cancelled") && show.output.contains("not today"))

        let retry = try Self.payrun(["jobs", "retry", "\(id)"] + url)
        #expect(retry.status == 0 && retry.output.contains("is pending"))
        #expect(try JobQueue.show(id: id, on: connection).state == "pending")

        let missing = try Self.payrun(["jobs", "show", "999999"] + url)
        #expect(missing.status == 1 && missing.output.contains("job 999999 not found"))
        let again = try Self.payrun(["jobs", "cancel", "\(id)"] + url)
        #expect(again.status == 0)
        let twice = try Self.payrun(["jobs", "cancel", "\(id)"] + url)
        #expect(twice.status == 1 && twice.output.contains("is cancelled: cannot cancel"))
        let help = try Self.payrun(["jobs", "--help"])
        #expect(help.status == 0 && help.output.contains("retry") && help.output.contains("cancel"))
    }
}
