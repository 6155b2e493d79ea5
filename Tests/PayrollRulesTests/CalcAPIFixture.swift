import Foundation
import Testing
@testable import PayrollRules

/// Requests for the calc-API tests, built from the documented Example 1 (calc-api.md; rules spec
/// §8): hourly 10,320원, Mon–Fri 17:30–24:00 with a 20:00–20:30 break, 2026-11-02 … 11-27, hired
/// 2026-11-02, period 2026-11-01 … 30.
enum CalcAPIFixture {
    static let period = #""periodStart": "2026-11-01", "periodEnd": "2026-11-30", "payDate": "2026-12-10""#
    static let workplace = #"{"fiveOrMore": true}"#
    static let employee = #"{"id": "e-1", "birthDate": "1999-03-02", "hiredOn": "2026-11-02"}"#
    static let contract = #"{"wageType": "hourly", "wage": 10320, "schedule": {"mon": 360, "tue": 360, "wed": 360, "thu": 360, "fri": 360}}"#

    /// One Example-1 shift starting on 2026-11-`day` (17:30–24:00, break 20:00–20:30).
    static func shift(day: Int) -> String {
        let d = String(format: "%02d", day), next = String(format: "%02d", day + 1)
        return #"{"start": "2026-11-\#(d)T17:30:00+09:00", "end": "2026-11-\#(next)T00:00:00+09:00", "breaks": [{"start": "2026-11-\#(d)T20:00:00+09:00", "end": "2026-11-\#(d)T20:30:00+09:00"}]}"#
    }

    /// Mon–Fri of the four weeks 2026-11-02 … 11-27.
    static let goldenShifts: [String] = [2, 9, 16, 23].flatMap { monday in (0..<5).map { shift(day: monday + $0) } }

    static func request(period: String = period, workplace: String = workplace, employee: String = employee,
                        contract: String = contract, shifts: [String] = goldenShifts, extra: String = "") -> String {
        #"{\#(period), "workplace": \#(workplace), "employee": \#(employee), "contract": \#(contract), "shifts": [\#(shifts.joined(separator: ", "))]\#(extra)}"#
    }

    static let golden = request()

    /// A plain shift (no breaks) from `start` to `end` (Korea times without the offset).
    static func plainShift(_ start: String, _ end: String, _ rest: String = "") -> String {
        #"{"start": "\#(start):00+09:00", "end": "\#(end):00+09:00"\#(rest)}"#
    }
}

/// Decodes `json` and expects the given error code and field.
func expectDecodingError(_ json: String, _ code: PayrollError.Code, field: String?, messageContains: String? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let input = try CalcRequestDecoder.decode(json)
        Issue.record("expected \(code.rawValue) at \(field ?? "nil"), but decoding succeeded for employee \(input.employee.id)",
                     sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
        if let m = messageContains {
            #expect(error.message.contains(m), "message: \(error.message)", sourceLocation: sourceLocation)
        }
    }
}

/// `CalcAPIFixture.golden` with one substring replaced (it must occur).
func golden(replacing target: String, with replacement: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    let g = CalcAPIFixture.golden
    #expect(g.contains(target), "fixture does not contain \(target)", sourceLocation: sourceLocation)
    return g.replacingOccurrences(of: target, with: replacement)
}

func contract(replacing target: String, with replacement: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    let c = CalcAPIFixture.contract
    #expect(c.contains(target), "contract does not contain \(target)", sourceLocation: sourceLocation)
    return CalcAPIFixture.request(contract: c.replacingOccurrences(of: target, with: replacement))
}
