import Foundation
import PostgresTestSupport
import Testing

/// Long commands show a progress line on stderr only when it is a terminal; `--wait` follows the
/// work until it is done and prints its outcome.
@Suite("Progress of long commands")
struct ProgressCommandTests {
    /// A `payrun worker` in the background for as long as the value lives.
    final class BackgroundWorker {
        let process = Process()
        init?(url: String) throws {
            guard let binary = PayrunBinary.locate() else { return nil }
            process.executableURL = binary
            process.arguments = ["worker", "--database-url", url, "--threads", "2", "--poll-seconds", "1", "--log-level", "error"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }
        deinit {
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                process.waitUntilExit()
            }
        }
    }

    @Test("schedule month-end --wait and enqueue recalc --wait return when the work is done and print its outcome; nothing on stderr without a terminal")
    func waitWithoutTerminal() throws {
        let database = try TestDatabase.create("cli_wait")
        defer { database.drop() }
        let url = ["--database-url", database.url]
        guard let demo = try PayrunBinary.run(["demo", "--workplaces", "1", "--employees-per-workplace", "6"] + url, input: "") else { return }
        #expect(demo.exitCode == 0, "\(demo.stderr)")
        guard let worker = try BackgroundWorker(url: database.url) else { return }
        defer { withExtendedLifetime(worker) {} }

        guard let schedule = try PayrunBinary.run(["schedule", "month-end", "--period", "2026-11", "--wait", "--timeout", "60"] + url,
                                                  input: "") else { return }
        #expect(schedule.exitCode == 0, "\(schedule.stderr)")
        #expect(schedule.stderr == "", "no progress line when stderr is not a terminal")
        #expect(schedule.lines.contains("1 run(s) created, 0 already existed"))
        let status = schedule.lines.last ?? ""
        #expect(status.hasPrefix("run ") && status.contains("(tenant 1, workplace 101): calculated"), "\(schedule.stdout)")
        #expect(status.contains("employees 6/6"), "\(schedule.stdout)")

        guard let recalc = try PayrunBinary.run(["enqueue", "recalc", "--tenant", "1", "--employee", "101001", "--period", "2026-10",
                                                 "--wait", "--timeout", "60"] + url, input: "") else { return }
        #expect(recalc.exitCode == 0, "\(recalc.stderr)")
        #expect(recalc.stderr == "")
        #expect(recalc.lines.last?.hasPrefix("job ") == true && recalc.lines.last?.hasSuffix("succeeded (attempt 1)") == true,
                "\(recalc.stdout)")
    }

    @Test("db migrate shows which migration it applies on a terminal, and nothing on stderr otherwise")
    func migrateProgress() throws {
        let plain = try TestDatabase.create("cli_migrate_plain")
        defer { plain.drop() }
        guard let run = try PayrunBinary.run(["db", "migrate", "--database-url", plain.url], input: "") else { return }
        #expect(run.exitCode == 0, "\(run.stderr)")
        #expect(run.stderr == "")
        #expect(run.lines.first?.hasPrefix("applied 0001_") == true)

        // Under a pseudo-terminal (script(1)): the progress line, rewritten in place, then cleared.
        guard let binary = PayrunBinary.locate(), FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let tty = try TestDatabase.create("cli_migrate_tty")
        defer { tty.drop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "'\(binary.path)' db migrate --database-url '\(tty.url)'", "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains("\r\u{1B}[2Kdb migrate: applying 1/"), "\(output.debugDescription)")
        #expect(output.contains("applied 0001_"))
    }
}
