/// A small, fast JSON writer appending UTF-8 bytes to a buffer (no `JSONEncoder`, no
/// reflection): the calc response is written field by field in the contract's key order.
///
/// Strings are escaped per RFC 8259: `"` and `\`, and every control character below U+0020
/// (`\n`, `\r`, `\t`, `\b`, `\f` short forms, others as `\u00XX`). Everything else, including
/// Korean text, passes through as UTF-8.
public struct JSONWriter {
    public var bytes: [UInt8]
    /// Whether the next member or element needs a leading comma, one entry per open container.
    private var needsComma: [Bool] = []

    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public init(appendingTo bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Containers

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    public mutating func endObject() { needsComma.removeLast(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    public mutating func endArray() { needsComma.removeLast(); bytes.append(UInt8(ascii: "]")) }

    /// Writes `"key":`; the value call that follows completes the member.
    public mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// Set between a key and its value: the value takes no comma.
    private var afterKey = false

    /// Ends a JSON Lines record.
    public mutating func newline() { bytes.append(0x0A) }

    /// Empties the buffer, keeping its capacity (after the bytes were written out).
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        needsComma.removeAll(keepingCapacity: true)
        afterKey = false
    }

    // MARK: Values

    public mutating func value(_ v: Int64) {
        separate()
        appendInteger(v)
    }

    public mutating func value(_ v: Int) { value(Int64(v)) }

    public mutating func value(_ v: Bool) {
        separate()
        bytes.append(contentsOf: v ? Array("true".utf8) : Array("false".utf8))
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }

    public mutating func value(_ s: String) {
        separate()
        appendEscaped(s)
    }

    /// An exact rational: a JSON number when whole, else the string `"p/q"` (calc-api rule 10).
    public mutating func value(_ r: Rational) {
        if r.isInteger { value(r.numerator) } else { value(r.description) }
    }

    // MARK: Members (key + value)

    public mutating func member(_ k: StaticString, _ v: Int64) { key(k); value(v) }
    public mutating func member(_ k: StaticString, _ v: String) { key(k); value(v) }
    public mutating func member(_ k: StaticString, _ v: Rational) { key(k); value(v) }
    public mutating func member(_ k: StaticString, _ v: Bool) { key(k); value(v) }

    // MARK: Internals

    private mutating func separate() {
        if afterKey { afterKey = false; return }
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    private mutating func appendInteger(_ v: Int64) {
        if v == 0 { bytes.append(UInt8(ascii: "0")); return }
        var m = v.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buf in
            while m > 0 {
                buf[count] = UInt8(m % 10) + 48
                m /= 10
                count += 1
            }
        }
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { buf in
            var i = count - 1
            while i >= 0 { bytes.append(buf[i]); i -= 1 }
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendEscaped(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var runStart = 0
            var i = 0
            while i < utf8.count {
                let c = utf8[i]
                if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") { i += 1; continue }
                if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
                bytes.append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                              JSONWriter.hex[Int(c >> 4)], JSONWriter.hex[Int(c & 0xF)]])
                }
                i += 1
                runStart = i
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
