import Foundation
import PostgresTestSupport
import Testing

/// End-to-end: `payrun seed` migrates a fresh database, seeds it, prints the summary, and
/// `payrun schedule month-end` then finds every seeded workplace.
@Suite("payrun seed, end to end")
struct SeedCommandTests {
    @Test("seed migrates, seeds 2 tenants × 200 employees, prints the summary; schedule month-end picks up every workplace")
    func seedThenSchedule() throws {
        let database = try TestDatabase.create("cli_seed")
        defer { database.drop() }
        let url = ["--database-url", database.url]
        guard let seeded = try PayrunBinary.run(["seed", "--tenants", "2", "--employees", "200", "--seed", "5", "--period", "2026-10"] + url,
                                                input: "")
        else { return }
        #expect(seeded.exitCode == 0, "\(seeded.stderr)")
        #expect(seeded.stderr.isEmpty, "progress must stay off when stderr is not a terminal: \(seeded.stderr)")
        let out = seeded.stdout
        #expect(out.contains("applied "))
        #expect(out.contains("seeded 2026-10 (seed 5)"))
        #expect(seeded.lines.contains { $0.hasPrefix("  tenants      2") })
        #expect(seeded.lines.contains { $0.hasPrefix("  employees    200") })
        for label in ["workplaces", "contracts", "shifts", "absences", "elapsed", "rows/s", "database"] {
            #expect(seeded.lines.contains { $0.hasPrefix("  \(label)") }, "no \(label) line in \(out)")
        }
        let workplaces = seeded.lines.first { $0.hasPrefix("  workplaces") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? -1
        #expect(workplaces >= 2)

        guard let scheduled = try PayrunBinary.run(["schedule", "month-end", "--period", "2026-10"] + url, input: "") else { return }
        #expect(scheduled.exitCode == 0, "\(scheduled.stderr)")
        #expect(scheduled.lines.last == "\(workplaces) run(s) created, 0 already existed", "\(scheduled.stdout)")
    }

    @Test("seed refuses bad values with a one-line error")
    func seedRefusesBadValues() throws {
        for (arguments, words) in [(["--employees", "0"], "employees must be at least 1"),
                                   (["--employees", "5", "--tenants", "6"], "must not exceed employees"),
                                   (["--employees", "5", "--shifts-per-employee", "40"], "shifts per employee"),
                                   (["--employees", "5", "--period", "2026-13"], "--period must be YYYY-MM")] {
            guard let run = try PayrunBinary.run(["seed", "--database-url", "host=/nonexistent"] + arguments, input: "") else { return }
            #expect(run.exitCode != 0)
            #expect(run.stderr.contains(words), "\(arguments): \(run.stderr)")
        }
    }
}
