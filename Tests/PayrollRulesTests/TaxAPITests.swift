import Foundation
import Testing
@testable import PayrollRules

@Suite("payrun tax request and response JSON (calc-api.md)")
struct TaxAPITests {
    static func respond(_ line: String) -> (json: String, ok: Bool) { TaxAPI.respond(toLine: Data(line.utf8)) }

    @Test("the calc-api example: 3,000,000, family 1, paid 2026-11-25")
    func documentedExample() {
        let r = Self.respond(#"{"monthlyPay": 3000000, "family": 1, "children8to20": 0, "ratio": 100, "payDate": "2026-11-25"}"#)
        #expect(r.ok)
        #expect(r.json == #"{"incomeTax":74350,"localIncomeTax":7430,"tableCell":74350,"childDeduction":0}"#)
    }

    @Test("ratio defaults to 100")
    func ratioDefault() throws {
        let req = try TaxAPI.decode(Data(#"{"monthlyPay": 3000000, "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#.utf8))
        #expect(req == TaxRequest(monthlyPayWon: 3_000_000, family: 1, children8to20: 0, ratio: 100, payDate: d("2026-11-25")))
    }

    @Test("childDeduction is the full note-3 amount even above the cell")
    func fullChildDeduction() {
        let r = Self.respond(#"{"monthlyPay": 3300000, "family": 4, "children8to20": 2, "payDate": "2026-10-25"}"#)
        #expect(r.json == #"{"incomeTax":0,"localIncomeTax":0,"tableCell":36580,"childDeduction":45830}"#)
    }

    @Test("error responses", arguments: [
        ("{", "invalid_json", "null"),
        ("[1, 2]", "invalid_json", "null"),
        (#"{"monthlyPay": 1, "family": 1, "children8to20": 0, "payDate": "2026-11-25", "ratoi": 80}"#, "unknown_field", #""ratoi""#),
        (#"{"monthlyPay": 1, "family": 1, "payDate": "2026-11-25"}"#, "missing_field", #""children8to20""#),
        (#"{"family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#, "missing_field", #""monthlyPay""#),
        (#"{"monthlyPay": 1.5, "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#, "invalid_value", #""monthlyPay""#),
        (#"{"monthlyPay": true, "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#, "invalid_value", #""monthlyPay""#),
        (#"{"monthlyPay": "1", "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#, "invalid_value", #""monthlyPay""#),
        (#"{"monthlyPay": 1, "family": 0, "children8to20": 0, "payDate": "2026-11-25"}"#, "invalid_value", #""family""#),
        (#"{"monthlyPay": 1, "family": 1, "children8to20": 0, "ratio": 90, "payDate": "2026-11-25"}"#, "invalid_value", #""ratio""#),
        (#"{"monthlyPay": 1, "family": 1, "children8to20": 0, "payDate": "2026-02-30"}"#, "invalid_value", #""payDate""#),
        (#"{"monthlyPay": 1, "family": 1, "children8to20": 0, "payDate": "2024-02-29"}"#, "unsupported", #""payDate""#),
    ])
    func errors(_ c: (line: String, code: String, field: String)) {
        let r = Self.respond(c.line)
        #expect(!r.ok)
        #expect(r.json.hasPrefix(#"{"error":{"code":""# + c.code + #"","message":""#))
        #expect(r.json.hasSuffix(#","field":"# + c.field + "}}"))
    }

    @Test("messages are JSON-escaped")
    func escaping() {
        #expect(TaxAPI.quoted("a\"b\\c\nd\u{1}") == #""a\"b\\c\nd\u0001""#)
        let json = TaxAPI.encode(PayrollError(.unknownField, "unknown field \"x\"", field: "x"))
        let parsed = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [String: String]]
        #expect(parsed?["error"]?["message"] == "unknown field \"x\"")
    }
}
