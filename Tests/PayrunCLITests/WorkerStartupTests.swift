import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// What `payrun worker` says when it starts, and `payrun db migrate` when workers will not COPY
/// their payslips (migration 0022).
@Suite("The payslip write path: worker start-up, db migrate")
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

    @Test("db migrate says nothing of payrun_payslip_writer when it is in place, and prints what a superuser can run when it is not")
    func migrateNamesTheMissingWriterRole() throws {
        let database = try TestDatabase.create("cli_migrate_writer_role")
        defer { database.drop() }
        guard let first = try PayrunBinary.run(["db", "migrate", "--database-url", database.url], input: "") else { return }
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(!first.stderr.contains("payrun_payslip_writer"), "\(first.stderr)")
        let admin = try PostgresConnection(url: database.url)
        defer { admin.close() }
        try admin.execute("REVOKE INSERT ON payrun.payslips FROM payrun_payslip_writer")
        guard let again = try PayrunBinary.run(["db", "migrate", "--database-url", database.url], input: "") else { return }
        #expect(again.exitCode == 0, "\(again.stderr)")
        #expect(again.stdout.contains("database is up to date"))
        #expect(again.stderr.contains("note: payrun_payslip_writer is not in place"), "\(again.stderr)")
        #expect(again.stderr.contains("    GRANT INSERT ON payrun.payslips TO payrun_payslip_writer;"), "\(again.stderr)")
        #expect(!again.stderr.contains("CREATE ROLE") && !again.stderr.contains("GRANT payrun_payslip_writer TO payrun_worker"))
        // What it prints puts the role back in place.
        for line in again.stderr.split(separator: "\n") where line.hasPrefix("    ") {
            try admin.execute(line.trimmingCharacters(in: .whitespaces))
        }
        guard let third = try PayrunBinary.run(["db", "migrate", "--database-url", database.url], input: "") else { return }
        #expect(!third.stderr.contains("payrun_payslip_writer"), "\(third.stderr)")
    }
}
