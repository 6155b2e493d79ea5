import Foundation
import PostgresTestSupport
import Testing

/// End-to-end: `payrun db migrate` and `payrun db status` against a fresh test database.
@Suite("payrun db, end to end")
struct DBCommandTests {
    static let migrationsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("sql/migrations").path

    @Test("db status, migrate, migrate again, status: pending, applied, up to date, applied")
    func migrateAndStatus() throws {
        let database = try TestDatabase.create("cli_db")
        defer { database.drop() }
        let url = ["--database-url", database.url]

        guard let before = try PayrunBinary.run(["db", "status"] + url, input: "") else { return }
        #expect(before.exitCode == 0, "\(before.stderr)")
        #expect(before.lines.contains { $0.hasPrefix("0001") && $0.contains("schema") && $0.contains("pending") })
        #expect(before.lines.last?.hasPrefix("0 applied") == true)

        guard let first = try PayrunBinary.run(["db", "migrate"] + url, input: "") else { return }
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(first.lines.contains { $0.hasPrefix("applied 0001_schema.sql") })
        #expect(first.lines.last?.hasPrefix("applied ") == true)

        guard let second = try PayrunBinary.run(["db", "migrate", "--migrations-dir", Self.migrationsDirectory] + url, input: "")
        else { return }
        #expect(second.exitCode == 0, "\(second.stderr)")
        #expect(second.lines.last?.hasPrefix("database is up to date") == true)

        guard let after = try PayrunBinary.run(["db", "status"] + url, input: "") else { return }
        #expect(after.exitCode == 0)
        #expect(!after.lines.contains { $0.contains("pending ") && $0.hasPrefix("0") })
        #expect(after.lines.last?.hasSuffix(" 0 pending") == true)
    }

    @Test("db migrate names the missing directory and the unreachable server")
    func migrateErrors() throws {
        guard let missing = try PayrunBinary.run(
            ["db", "migrate", "--migrations-dir", "/nonexistent/migrations", "--database-url", "host=/nonexistent"], input: "")
        else { return }
        #expect(missing.exitCode != 0)
        #expect(missing.stderr.contains("/nonexistent/migrations"))

        guard let unreachable = try PayrunBinary.run(
            ["db", "migrate", "--database-url", "postgresql://payrun:secret@/payrun?host=/nonexistent-socket-dir"], input: "")
        else { return }
        #expect(unreachable.exitCode != 0)
        #expect(unreachable.stderr.contains("cannot connect to PostgreSQL"))
        #expect(!unreachable.stderr.contains("secret"), "the password must not be printed")
    }
}
