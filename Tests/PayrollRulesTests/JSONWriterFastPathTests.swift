import PayrollRules
import Testing

/// The JSON writer's fast paths (whole words scanned for bytes to escape, one append per token,
/// comma state in bits up to depth 64) must write exactly what escaping byte by byte writes.
@Suite("JSONWriter fast paths")
struct JSONWriterFastPathTests {
    /// The reference: RFC 8259 escaping one byte at a time.
    static func escapedByteByByte(_ s: String) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    @Test("a byte to escape at every position of the first words and of the tail")
    func escapeAtEveryPosition() {
        let specials: [String] = ["\"", "\\", "\n", "\u{01}", "\u{1F}"]
        let fillers = ["abcdefghijklmnopqrstuvwx", "주휴수당 계산방법 ×1.5", "\u{7F}\u{80}~ ÷ 0.9448%"]
        for filler in fillers {
            let bytes = Array(filler.utf8)
            for special in specials {
                for position in 0...min(bytes.count, 19) {
                    // Split only at a character boundary of the filler.
                    guard let prefix = String(validating: bytes[..<position], as: UTF8.self),
                          let suffix = String(validating: bytes[position...], as: UTF8.self) else { continue }
                    let text = prefix + special + suffix
                    var w = JSONWriter()
                    w.value(text)
                    #expect(String(decoding: w.bytes, as: UTF8.self) == Self.escapedByteByByte(text), "\(text.debugDescription)")
                }
            }
            var w = JSONWriter()
            w.member("k", filler)
            #expect(String(decoding: w.bytes, as: UTF8.self) == "\"k\":" + Self.escapedByteByByte(filler))
        }
    }

    @Test("rationals are written from their integers: negative, large, whole")
    func rationals() {
        var w = JSONWriter()
        w.beginArray()
        for r in [Rational(-1, 3), Rational(Int64.max, 10), Rational(Int64.min + 1, 2), Rational(-6, 3), Rational(0)] { w.value(r) }
        w.endArray()
        let expected = "[" + ["\"-1/3\"", "\"\(Int64.max)/10\"", "\"\(Int64.min + 1)/2\"", "-2", "0"].joined(separator: ",") + "]"
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected)
    }

    @Test("commas stay right beyond 64 nested containers and after removeAll")
    func deepNesting() {
        var w = JSONWriter()
        for depth in 0..<70 {
            w.beginArray()
            w.value(depth)
        }
        for _ in 0..<70 { w.endArray() }
        // Each level holds its number, then the next array: "[0,[1,[2,…[69]]…]".
        let expected = (0..<70).map { "[\($0)" }.joined(separator: ",") + String(repeating: "]", count: 70)
        #expect(String(decoding: w.bytes, as: UTF8.self) == expected)
        w.removeAll()
        w.beginObject(); w.member("a", Int64(1)); w.member("b", true); w.key("c"); w.null(); w.endObject()
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"a":1,"b":true,"c":null}"#)
    }
}
