import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// What `payrun worker` says when it starts.
@Suite("payrun worker start-up")
struct WorkerStartupTests {
    /// Starts `payrun worker` on `url` at log level info, returns the first stderr line containing
    /// `marker` (nil if none before the process ended, or within 30 s), and stops the worker.
    static func startupLine(url: String, containing marker: String) throws -> String? {
        guard let binary = PayrunBinary.locate() else { return nil }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["worker", "--database-url", url, "--threads", "1", "--poll-seconds", "1", "--log-level", "info"]
        let stderr = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGTERM) }
            process.waitUntilExit()
        }
        // Reads block until data or end of file: a worker still running after 30 s is stopped,
        // which ends its stderr.
        let pid = process.processIdentifier
        let stopLate = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: stopLate)
        defer { stopLate.cancel() }
        var text = ""
        let handle = stderr.fileHandleForReading
        while true {
            let data = handle.availableData
            if data.isEmpty { return nil }  // end of file: the worker ended
            text += String(decoding: data, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.contains(marker) }) { return String(line) }
        }
    }

    @Test("the worker says how it will write a first calculation's payslips: COPY as itself, COPY as payrun_payslip_writer, or the arrays")
    func saysThePayslipPath() throws {
        let database = try TestDatabase.create("cli_worker_payslip_path")
        defer { database.drop() }
        guard let migrate = try PayrunBinary.run(["db", "migrate", "--database-url", database.url], input: "") else { return }
        #expect(migrate.exitCode == 0, "\(migrate.stderr)")
        let marker = "payslips of a first calculation"
        let asWorker = try #require(PostgresConnectionString.addingStartupSetting(in: database.url, name: "role", value: "payrun_worker"))

        let own = try Self.startupLine(url: database.url, containing: marker)
        #expect(own?.contains("as this session's role") == true, "\(own ?? "no line")")
        let worker = try Self.startupLine(url: asWorker, containing: marker)
        #expect(worker?.contains("as payrun_payslip_writer") == true, "\(worker ?? "no line")")

        let admin = try PostgresConnection(url: database.url)
        defer { admin.close() }
        try admin.execute("REVOKE INSERT ON payrun.payslips FROM payrun_payslip_writer")
        let arrays = try Self.startupLine(url: asWorker, containing: marker)
        #expect(arrays?.contains("inserted from column arrays") == true && arrays?.contains("notice") == true, "\(arrays ?? "no line")")
    }
}
