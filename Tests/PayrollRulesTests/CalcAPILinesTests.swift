import Testing
@testable import PayrollRules

/// JSON Lines splitting and per-line processing (`payrun calc` without the process).
@Suite("calc API: JSON Lines")
struct CalcAPILinesTests {
    enum Got: Equatable { case text(String), tooLong }

    static func split(_ text: String, chunk: Int, max: Int = CalcLimits.lineBytesMax) -> [Got] {
        let bytes = Array(text.utf8)
        var reader = JSONLinesReader(lineBytesMax: max)
        var got: [Got] = []
        let record: (JSONLinesReader.Line) -> Void = { line in
            switch line {
            case .text(let b): got.append(.text(String(decoding: b, as: UTF8.self)))
            case .tooLong: got.append(.tooLong)
            }
        }
        var i = 0
        while i < bytes.count {
            let end = min(i + chunk, bytes.count)
            bytes[i..<end].withUnsafeBufferPointer { reader.feed($0, record) }
            i = end
        }
        reader.finish(record)
        return got
    }

    @Test("lines split the same way whatever the chunk size; \\r\\n accepted; a last line without newline is read")
    func chunkBoundaries() {
        let text = "{\"a\":1}\r\n\n  \n{\"b\":\"주휴\"}\n{\"c\":3}"
        let expected: [Got] = [.text("{\"a\":1}"), .text(""), .text("  "), .text("{\"b\":\"주휴\"}"), .text("{\"c\":3}")]
        for chunk in [1, 2, 3, 7, 1 << 16] {
            #expect(Self.split(text, chunk: chunk) == expected, "chunk \(chunk)")
        }
    }

    @Test("a line over the limit is reported once as tooLong and skipped to its newline, in any chunking")
    func tooLongLines() {
        let text = "12345\n" + String(repeating: "x", count: 25) + "\n123\n" + String(repeating: "y", count: 11)
        for chunk in [1, 4, 10, 100] {
            #expect(Self.split(text, chunk: chunk, max: 10) == [.text("12345"), .tooLong, .text("123"), .tooLong], "chunk \(chunk)")
        }
        // Exactly at the limit is fine, also with a \r.
        #expect(Self.split("1234567890\r\n1234567890", chunk: 3, max: 10) == [.text("1234567890"), .text("1234567890")])
    }

    @Test("blank lines are skipped; bad lines get an error response; the response count matches non-blank lines")
    func processorOutcomes() {
        var out = JSONWriter()
        var outcomes: [CalcLineProcessor.Outcome] = []
        let lines = ["", "  \r", "{", #"{"periodStart": 1}"#]
        for l in lines {
            var bytes = Array(l.utf8)
            bytes.withUnsafeMutableBufferPointer { b in
                outcomes.append(CalcLineProcessor.respond(to: .text(UnsafeBufferPointer(b)), into: &out))
            }
        }
        outcomes.append(CalcLineProcessor.respond(to: .tooLong, into: &out))
        #expect(outcomes == [.skippedBlank, .skippedBlank, .failed, .failed, .failed])
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text.split(separator: "\n").count == 3)
        #expect(text.hasPrefix(#"{"error":{"code":"invalid_json""#))
        #expect(text.contains(#"{"error":{"code":"invalid_value","message":"expected a string, got an integer","field":"periodStart"}}"#))
        #expect(text.hasSuffix(#"{"error":{"code":"unsupported","message":"request line is longer than 1048576 bytes"}}"# + "\n"))
    }
}
