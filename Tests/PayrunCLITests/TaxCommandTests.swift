import Foundation
import Testing

/// `payrun tax` end to end: the built binary, JSON Lines in and out (calc-api.md).
@Suite("payrun tax command")
struct TaxCommandTests {
    /// Runs `payrun tax` with `input` on stdin (the one runner, `PayrunBinary.run`); nil when the
    /// binary is missing (an issue is recorded).
    static func runTax(_ input: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (lines: [String], status: Int32)? {
        guard let run = try PayrunBinary.run(["tax"], input: input, sourceLocation: sourceLocation) else { return nil }
        return (run.lines, run.exitCode)
    }

    @Test("answers every line in order; a bad line gets an error, the rest are still answered, exit 1")
    func badLineKeepsGoing() throws {
        let input = """
            {"monthlyPay": 3000000, "family": 1, "children8to20": 0, "ratio": 100, "payDate": "2026-11-25"}
            {"monthlyPay": 3000000, "family": 1, "children8to20": 0, "ratio": 90, "payDate": "2026-11-25"}
            not json
            {"monthlyPay": 3300000, "family": 4, "children8to20": 2, "payDate": "2026-02-25"}

            """
        guard case let (lines, status)? = try Self.runTax(input) else { return }
        #expect(status == 1)
        #expect(lines == [
            #"{"incomeTax":74350,"localIncomeTax":7430,"tableCell":74350,"childDeduction":0}"#,
            #"{"error":{"code":"invalid_value","message":"ratio must be 80, 100 or 120","field":"ratio"}}"#,
            #"{"error":{"code":"invalid_json","message":"invalid literal (at byte 0)"}}"#,
            #"{"incomeTax":7420,"localIncomeTax":740,"tableCell":36580,"childDeduction":29160}"#,
        ])
    }

    @Test("all lines good → exit 0; CRLF and a last line without newline are accepted")
    func allGood() throws {
        guard case let (lines, status)? = try Self.runTax(
            "{\"monthlyPay\": 12000000, \"family\": 2, \"children8to20\": 0, \"payDate\": \"2026-10-25\"}\r\n"
            + "{\"monthlyPay\": 5000000, \"family\": 12, \"children8to20\": 0, \"payDate\": \"2026-10-25\"}") else { return }
        #expect(status == 0)
        #expect(lines == [
            #"{"incomeTax":2142570,"localIncomeTax":214250,"tableCell":2142570,"childDeduction":0}"#,
            #"{"incomeTax":69100,"localIncomeTax":6910,"tableCell":69100,"childDeduction":0}"#,
        ])
    }

    @Test("a line over 1 MiB is skipped with an unsupported error (as in payrun calc); the next line is answered")
    func overlongLine() throws {
        let good = #"{"monthlyPay": 3000000, "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#
        guard case let (lines, status)? = try Self.runTax(String(repeating: "x", count: 1_500_000) + "\n" + good + "\n") else { return }
        #expect(status == 1)
        #expect(lines == [
            #"{"error":{"code":"unsupported","message":"request line is longer than 1048576 bytes"}}"#,
            #"{"incomeTax":74350,"localIncomeTax":7430,"tableCell":74350,"childDeduction":0}"#,
        ])
    }

    @Test("10,000 lines in one process, one answer per line, in order")
    func tenThousandLines() throws {
        // §5.6 and §5.3 cells for n = 1, cycled so that every answer is known.
        let cells: [(pay: Int, tax: Int)] = [(3_000_000, 74_350), (2_000_000, 19_520), (5_000_000, 335_470),
                                             (10_000_000, 1_507_400), (12_000_000, 2_218_400)]
        var input = ""
        var expected: [String] = []
        for i in 0..<10_000 {
            let c = cells[i % cells.count]
            input += "{\"monthlyPay\": \(c.pay), \"family\": 1, \"children8to20\": 0, \"payDate\": \"2026-11-25\"}\n"
            expected.append("{\"incomeTax\":\(c.tax),\"localIncomeTax\":\(c.tax / 100 * 10),\"tableCell\":\(c.tax),\"childDeduction\":0}")
        }
        let started = ContinuousClock.now
        guard case let (lines, status)? = try Self.runTax(input) else { return }
        let elapsed = ContinuousClock.now - started
        #expect(status == 0)
        #expect(lines.count == 10_000)
        #expect(lines == expected)
        #expect(elapsed < .seconds(30), "10,000 lines took \(elapsed)")
    }
}

@Suite("payrun calc and payrun tax share one line discipline")
struct JSONLinesConsistencyTests {
    @Test("malformed, blank, CRLF, repeated-key, non-object and over-long lines get identical answers from calc and tax")
    func sameAnswers() throws {
        let input = "{\n\r\n \t\r\n[1, 2]\r\n{\"a\": 1, \"a\": 2}\n\"text\"\n" + String(repeating: " ", count: 1_100_000) + "{}\n{\"a\": tru}"
        guard let calc = try PayrunBinary.run(["calc"], input: input),
              let tax = try PayrunBinary.run(["tax"], input: input) else { return }
        #expect(calc.exitCode == 1)
        #expect(tax.exitCode == 1)
        #expect(calc.lines.count == 6, "\(calc.stdout)")
        #expect(calc.stdout == tax.stdout)
        #expect(calc.lines.map { PayrunBinary.error($0).code }
                == ["invalid_json", "invalid_json", "invalid_json", "invalid_json", "unsupported", "invalid_json"])
        #expect(!calc.stdout.contains(#""field""#), "no error here names a field: \(calc.stdout)")
    }
}
