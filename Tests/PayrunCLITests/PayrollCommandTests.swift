import Foundation
import PostgresTestSupport
import Testing

/// End-to-end: `payrun demo` against a fresh database, then the payroll commands on its data.
@Suite("payrun demo, schedule, runs, payslip, enqueue — end to end")
struct PayrollCommandTests {
    @Test("demo computes the month-end; schedule again creates nothing; payslip text has every §7 item; approve locks; recalc becomes a pending correction")
    func demoAndPayrollCommands() throws {
        let database = try TestDatabase.create("cli_payroll")
        defer { database.drop() }
        let url = ["--database-url", database.url]

        guard let demo = try PayrunBinary.run(["demo", "--workplaces", "2", "--employees-per-workplace", "10"] + url, input: "") else { return }
        #expect(demo.exitCode == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("seeded tenant 1: 2 workplaces, 20 employees"))
        #expect(demo.lines.filter { $0.hasPrefix("status: calculated") }.count == 2)
        #expect(demo.lines.filter { $0.hasPrefix("임금명세서") }.count == 2)

        guard let again = try PayrunBinary.run(["schedule", "month-end", "--period", "2026-10"] + url, input: "") else { return }
        #expect(again.exitCode == 0, "\(again.stderr)")
        #expect(again.lines.last == "0 run(s) created, 2 already existed")
        guard let jobs = try PayrunBinary.run(["jobs", "list", "--kind", "run.plan"] + url, input: "") else { return }
        // The demo's month-end is one tenant: one plan job for its two runs.
        #expect(jobs.lines.filter { $0.contains("run.plan") }.count == 1, "\(jobs.stdout)")

        guard let list = try PayrunBinary.run(["runs", "list", "--tenant", "1"] + url, input: "") else { return }
        #expect(list.exitCode == 0)
        let runIds = list.lines.dropFirst().compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(runIds.count == 2)
        guard let runId = runIds.first else { return }  // workplace 101, where employee 101001 works

        // 임금명세서 items of rules spec §7, and each line's method.
        guard let text = try PayrunBinary.run(["payslip", "--run", runId, "--employee", "101001"] + url, input: "") else { return }
        #expect(text.exitCode == 0, "\(text.stderr)")
        for item in ["성명", "사원번호", "임금지급일", "임금 총액", "기본급", "계산방법", "공제 항목", "국민연금", "소득세", "공제 총액", "실지급액",
                     "연장", "야간", "휴일", "근로일수", "총 근로시간"] {
            #expect(text.stdout.contains(item), "payslip text lacks \(item)")
        }
        guard let json = try PayrunBinary.run(["payslip", "--tenant", "1", "--run", runId, "--employee", "101001", "--format", "json"] + url,
                                              input: "") else { return }
        #expect(json.stdout.hasPrefix("{\"employeeId\":\"101001\",\"ruleSet\":\"kr-2026.10\",\"minutes\":{"))

        guard let approve = try PayrunBinary.run(["runs", "approve", "--tenant", "1", runId] + url, input: "") else { return }
        #expect(approve.exitCode == 0, "\(approve.stderr)")
        guard let recalc = try PayrunBinary.run(["enqueue", "recalc", "--tenant", "1", "--employee", "101001", "--period", "2026-10"] + url,
                                                input: "") else { return }
        #expect(recalc.exitCode == 0, "\(recalc.stderr)")
        #expect(recalc.stdout.contains("pending correction"))
        guard let show = try PayrunBinary.run(["runs", "show", runId] + url, input: "") else { return }
        #expect(show.stdout.contains("status: approved"))
        #expect(show.stdout.contains("pending corrections"))
        #expect(show.stdout.contains("phases over 1 chunk(s): load "), "\(show.stdout)")
        guard let json2 = try PayrunBinary.run(["payslip", "--tenant", "1", "--run", runId, "--employee", "101001", "--format", "json"] + url,
                                               input: "") else { return }
        #expect(json2.stdout == json.stdout)
    }
}
