import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// End-to-end: JSON Lines through the built `payrun calc` and `payrun tax` processes.
@Suite("payrun calc and tax, end to end")
struct CalcCommandTests {
    /// calc-api.md Example 1 (rules spec §8 Example 1) as one request line.
    static func goldenRequest(employeeId: String = "e-1") -> String {
        let shifts = [2, 9, 16, 23].flatMap { monday in (0..<5).map { monday + $0 } }.map { day -> String in
            let d = String(format: "%02d", day), next = String(format: "%02d", day + 1)
            return #"{"start": "2026-11-\#(d)T17:30:00+09:00", "end": "2026-11-\#(next)T00:00:00+09:00", "breaks": [{"start": "2026-11-\#(d)T20:00:00+09:00", "end": "2026-11-\#(d)T20:30:00+09:00"}]}"#
        }
        return #"{"periodStart": "2026-11-01", "periodEnd": "2026-11-30", "payDate": "2026-12-10", "workplace": {"fiveOrMore": true}, "employee": {"id": "\#(employeeId)", "birthDate": "1999-03-02", "hiredOn": "2026-11-02"}, "contract": {"wageType": "hourly", "wage": 10320, "schedule": {"mon": 360, "tue": 360, "wed": 360, "thu": 360, "fri": 360}}, "shifts": [\#(shifts.joined(separator: ", "))]}"#
    }

    static func expectGolden(_ line: String, employeeId: String = "e-1", sourceLocation: SourceLocation = #_sourceLocation) {
        guard let o = PayrunBinary.object(line, sourceLocation: sourceLocation), o["employeeId"] != nil else {
            Issue.record("not a payslip: \(line.prefix(300))", sourceLocation: sourceLocation)
            return
        }
        #expect(o["employeeId"] as? String == employeeId, "\(line.prefix(300))", sourceLocation: sourceLocation)
        #expect(o["ruleSet"] as? String == "kr-2026.11", sourceLocation: sourceLocation)
        #expect(PayrunBinary.int(o, "gross") == 1_692_480, sourceLocation: sourceLocation)
        #expect(PayrunBinary.int(o, "totalDeductions") == 178_550, sourceLocation: sourceLocation)
        #expect(PayrunBinary.int(o, "net") == 1_513_930, sourceLocation: sourceLocation)
    }

    @Test("calc: bad lines each get their own error in order, blank lines are skipped, exit status 1")
    func calcErrorsPerLine() throws {
        let input = [
            "{\"periodStart\": ",                                     // malformed JSON
            "",                                                        // blank: skipped
            Self.goldenRequest().replacingOccurrences(of: #""wage": 10320"#, with: #""wage": 0"#),
            "   ",                                                     // blank: skipped
            Self.goldenRequest().replacingOccurrences(of: #""fiveOrMore": true"#, with: #""fiveOrMore": true, "size": 3"#),
            Self.goldenRequest().replacingOccurrences(of: "2026-11-02T17:30:00+09:00", with: "2026-11-03T01:00:00+09:00"),
            "[1, 2]",
        ].joined(separator: "\n") + "\n"
        guard let run = try PayrunBinary.run(["calc"], input: input) else { return }
        #expect(run.exitCode == 1)
        let lines = run.lines
        #expect(lines.count == 5, "\(run.stdout)")
        guard lines.count == 5 else { return }
        #expect(PayrunBinary.error(lines[0]).code == "invalid_json")
        #expect(PayrunBinary.error(lines[0]).field == nil)
        #expect(PayrunBinary.error(lines[1]) == ("invalid_value", "contract.wage"))
        #expect(PayrunBinary.error(lines[2]) == ("unknown_field", "workplace.size"))
        #expect(PayrunBinary.error(lines[3]) == ("invalid_value", "shifts[0].end"))
        #expect(PayrunBinary.error(lines[4]).code == "invalid_json")
    }

    @Test("calc: a 3 MiB line gets unsupported (the 1 MiB limit) and the lines after it are still answered")
    func calcOverlongLine() throws {
        let huge = #"{"periodStart": ""# + String(repeating: "x", count: 3 << 20) + #""}"#
        guard let run = try PayrunBinary.run(["calc"], input: huge + "\n{}\n") else { return }
        #expect(run.exitCode == 1)
        #expect(run.lines.count == 2)
        guard run.lines.count == 2 else { return }
        #expect(PayrunBinary.error(run.lines[0]).code == "unsupported")
        #expect(run.lines[0].contains("1048576 bytes"))
        #expect(PayrunBinary.error(run.lines[1]) == ("missing_field", "periodStart"))
    }

    @Test("calc: the golden request (calc-api.md Example 1) gives gross 1,692,480, deductions 178,550, net 1,513,930; exit 0")
    func calcGolden() throws {
        guard let run = try PayrunBinary.run(["calc"], input: Self.goldenRequest() + "\n") else { return }
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.lines.count == 1)
        if let line = run.lines.first { Self.expectGolden(line) }
    }

    @Test("calc: good and bad lines mixed keep their order; a last line without newline is answered; exit 1")
    func calcMixed() throws {
        let input = Self.goldenRequest(employeeId: "a") + "\r\n" + "{\"oops\"\n" + Self.goldenRequest(employeeId: "b")
        guard let run = try PayrunBinary.run(["calc"], input: input) else { return }
        #expect(run.exitCode == 1)
        #expect(run.lines.count == 3, "\(run.stdout)")
        guard run.lines.count == 3 else { return }
        Self.expectGolden(run.lines[0], employeeId: "a")
        #expect(PayrunBinary.error(run.lines[1]).code == "invalid_json")
        Self.expectGolden(run.lines[2], employeeId: "b")
    }

    @Test("calc: 10,000 requests in one process complete (under 120 s in a debug build), one response each, in order")
    func calcTenThousand() throws {
        let count = 10_000
        let input = (0..<count).map { Self.goldenRequest(employeeId: "e-\($0)") }.joined(separator: "\n") + "\n"
        let started = ContinuousClock.now
        guard let run = try PayrunBinary.run(["calc"], input: input) else { return }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(120), "10,000 requests took \(elapsed)")
        #expect(run.exitCode == 0, "\(run.lines.first ?? "")")
        let lines = run.lines
        #expect(lines.count == count)
        // Spot-check order and content (every line is checked for its id).
        for (i, line) in lines.enumerated() where !line.hasPrefix(#"{"employeeId":"e-\#(i)","#) {
            Issue.record("line \(i) is not the payslip of e-\(i): \(line.prefix(200))")
            break
        }
        for i in [0, 4_999, count - 1] where i < lines.count { Self.expectGolden(lines[i], employeeId: "e-\(i)") }
    }

    @Test("calc as a coprocess: each answer arrives before stdin is closed (output is flushed before every blocking read)")
    func calcCoprocess() throws {
        guard let binary = PayrunBinary.locate() else {
            Issue.record("payrun binary not found; run `swift build`")
            return
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["calc"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Safety net: a child that never answers is killed after 30 s, which ends the read below
        // with a failure instead of a hung test run. SIGKILL, because a child spawned from a test
        // thread can inherit a signal mask that blocks SIGTERM.
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { if process.isRunning { kill(pid, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }

        func answer(to line: String) -> String {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
            var got = Data()
            while !got.contains(0x0A) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                got.append(chunk)
            }
            return String(decoding: got, as: UTF8.self).trimmingCharacters(in: .newlines)
        }
        Self.expectGolden(answer(to: Self.goldenRequest(employeeId: "first")), employeeId: "first")
        #expect(PayrunBinary.error(answer(to: "{")).code == "invalid_json")
        Self.expectGolden(answer(to: Self.goldenRequest(employeeId: "third")), employeeId: "third")
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
    }

    @Test("calc --help and tax --help document blank lines, the error shape and limits (1 MiB lines are unsupported)", arguments: [
        ("calc", ["Blank lines", "offset", "1 MiB", "1,000 shifts", "exit status is 1", "is omitted", "last date with pay"]),
        ("tax", ["Blank lines", "is omitted", "1 MiB gets unsupported", "repeated key is invalid_json", "exit status is 1"]),
    ])
    func help(_ c: (command: String, phrases: [String])) throws {
        guard let run = try PayrunBinary.run([c.command, "--help"], input: "") else { return }
        #expect(run.exitCode == 0)
        for phrase in c.phrases {
            #expect(run.stdout.contains(phrase), "missing \(phrase) in:\n\(run.stdout)")
        }
    }

    @Test("tax: the calc-api.md example gives 74,350 / 7,430 / 74,350 / 0; a bad line gets an error; exit 1")
    func taxExampleAndBadLine() throws {
        let input = #"{"monthlyPay": 3000000, "family": 1, "children8to20": 0, "ratio": 100, "payDate": "2026-11-25"}"# + "\n"
            + #"{"monthlyPay": 3000000, "family": 0, "children8to20": 0, "payDate": "2026-11-25"}"# + "\n"
        guard let run = try PayrunBinary.run(["tax"], input: input) else { return }
        #expect(run.exitCode == 1, "\(run.stdout)\(run.stderr)")
        let lines = run.lines
        #expect(lines.count == 2, "\(run.stdout)\(run.stderr)")
        guard lines.count == 2 else { return }
        let o = PayrunBinary.object(lines[0])
        #expect(PayrunBinary.int(o, "incomeTax") == 74_350, "\(lines[0])")
        #expect(PayrunBinary.int(o, "localIncomeTax") == 7_430)
        #expect(PayrunBinary.int(o, "tableCell") == 74_350)
        #expect(PayrunBinary.int(o, "childDeduction") == 0)
        #expect(o.map { Set($0.keys) } == ["incomeTax", "localIncomeTax", "tableCell", "childDeduction"])
        let e = PayrunBinary.error(lines[1])
        #expect(e.code == "invalid_value", "\(lines[1])")
        #expect(e.field == "family", "\(lines[1])")
    }
}
