import Foundation
import Testing
@testable import PayrollRules

@Suite("payrun tax request and response JSON (calc-api.md)")
struct TaxAPITests {
    /// The response line (without its newline) to one request line; `ok` is false for an error.
    static func respond(_ line: String) -> (json: String, ok: Bool) {
        var out = JSONWriter()
        var line = line
        let outcome = line.withUTF8 { TaxAPI.respond(to: .text($0), into: &out) }
        return (String(decoding: out.bytes.dropLast(), as: UTF8.self), outcome == .computed)
    }

    @Test("the calc-api example: 3,000,000, family 1, paid 2026-11-25")
    func documentedExample() {
        let r = Self.respond(#"{"monthlyPay": 3000000, "family": 1, "children8to20": 0, "ratio": 100, "payDate": "2026-11-25"}"#)
        #expect(r.ok)
        #expect(r.json == #"{"incomeTax":74350,"localIncomeTax":7430,"tableCell":74350,"childDeduction":0}"#)
    }

    @Test("ratio defaults to 100")
    func ratioDefault() throws {
        let req = try TaxAPI.decode(#"{"monthlyPay": 3000000, "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#)
        #expect(req == TaxRequest(monthlyPayWon: 3_000_000, family: 1, children8to20: 0, ratio: 100, payDate: d("2026-11-25")))
    }

    @Test("childDeduction is the full note-3 amount even above the cell")
    func fullChildDeduction() {
        let r = Self.respond(#"{"monthlyPay": 3300000, "family": 4, "children8to20": 2, "payDate": "2026-10-25"}"#)
        #expect(r.json == #"{"incomeTax":0,"localIncomeTax":0,"tableCell":36580,"childDeduction":45830}"#)
    }

    @Test("error responses", arguments: [
        ("{", "invalid_json", nil),
        ("[1, 2]", "invalid_json", nil),
        (#"{"monthlyPay": 1, "monthlyPay": 2, "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#, "invalid_json", nil),
        (#"{"monthlyPay": null, "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#, "missing_field", #""monthlyPay""#),
        (#"{"monthlyPay": 1, "family": 1, "children8to20": 0, "payDate": "2026-11-25", "ratio": "100"}"#, "invalid_value", #""ratio""#),
        (#"{"monthlyPay": 1e6, "family": 1, "children8to20": 0, "payDate": "2026-11-25"}"#, "invalid_value", #""monthlyPay""#),
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
    func errors(_ c: (line: String, code: String, field: String?)) {
        let r = Self.respond(c.line)
        #expect(!r.ok)
        #expect(r.json.hasPrefix(#"{"error":{"code":""# + c.code + #"","message":""#))
        if let field = c.field {
            #expect(r.json.hasSuffix(#","field":"# + field + "}}"))
        } else {
            #expect(!r.json.contains(#""field""#), "field is omitted when the error names none, as in payrun calc: \(r.json)")
        }
    }

    @Test("ratio null means its default, as an optional calc field does")
    func ratioNull() throws {
        let req = try TaxAPI.decode(#"{"monthlyPay": 3000000, "family": 1, "children8to20": 0, "ratio": null, "payDate": "2026-11-25"}"#)
        #expect(req.ratio == 100)
    }

    @Test("the line discipline is calc's: blank lines get nothing, an over-long line is unsupported")
    func lineDiscipline() {
        var out = JSONWriter()
        let blank: [UInt8] = [0x20, 0x09, 0x0D]
        #expect(blank.withUnsafeBufferPointer { TaxAPI.respond(to: .text($0), into: &out) } == .skippedBlank)
        #expect(out.bytes.isEmpty)
        #expect(TaxAPI.respond(to: .tooLong, into: &out) == .failed)
        #expect(String(decoding: out.bytes, as: UTF8.self)
                == #"{"error":{"code":"unsupported","message":"request line is longer than 1048576 bytes"}}"# + "\n")
    }
}
