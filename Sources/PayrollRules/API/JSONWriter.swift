/// A small, fast JSON writer appending UTF-8 bytes to a buffer (no `JSONEncoder`, no
/// reflection): the calc response is written field by field in the contract's key order.
///
/// Strings are escaped per RFC 8259: `"` and `\`, and every control character below U+0020
/// (`\n`, `\r`, `\t`, `\b`, `\f` short forms, others as `\u00XX`). Everything else, including
/// Korean text, passes through as UTF-8.
public struct JSONWriter {
    public var bytes: [UInt8]
    /// Whether the next member or element needs a leading comma, one bit per open container
    /// (bit d − 1 for depth d ≤ 64; deeper levels in `deepNeedsComma`): no array traffic per value.
    private var commaBits: UInt64 = 0
    private var depth = 0
    private var deepNeedsComma: [Bool] = []

    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public init(appendingTo bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Containers

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Writes `"key":`; the value call that follows completes the member.
    public mutating func key(_ key: StaticString) {
        let comma = separate()
        appendKey(key, comma: comma)
        afterKey = true
    }

    /// Set between a key and its value: the value takes no comma.
    private var afterKey = false

    /// Ends a JSON Lines record.
    public mutating func newline() { bytes.append(0x0A) }

    /// Empties the buffer, keeping its capacity (after the bytes were written out).
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        commaBits = 0
        depth = 0
        deepNeedsComma.removeAll(keepingCapacity: true)
        afterKey = false
    }

    // MARK: Values

    public mutating func value(_ v: Int64) {
        let comma = separate()
        appendToken(comma: comma, capacity: 21) { p in Self.writeInteger(v, to: p) }
    }

    public mutating func value(_ v: Int) { value(Int64(v)) }

    public mutating func value(_ v: Bool) {
        let comma = separate()
        appendLiteral(v ? "true" : "false", comma: comma)
    }

    public mutating func null() {
        let comma = separate()
        appendLiteral("null", comma: comma)
    }

    public mutating func value(_ s: String) {
        let comma = separate()
        appendToken(comma: comma, capacity: 1) { p in p[0] = UInt8(ascii: "\""); return 1 }
        appendEscapedBody(s)
    }

    /// An exact rational: a JSON number when whole, else the string `"p/q"` (calc-api rule 10).
    /// Written straight from the two integers (the same bytes as escaping `r.description`).
    public mutating func value(_ r: Rational) {
        if r.isInteger { value(r.numerator); return }
        let comma = separate()
        appendToken(comma: comma, capacity: 44) { p in
            p[0] = UInt8(ascii: "\"")
            var n = 1 + Self.writeInteger(r.numerator, to: p + 1)
            p[n] = UInt8(ascii: "/")
            n += 1
            n += Self.writeInteger(r.denominator, to: p + n)
            p[n] = UInt8(ascii: "\"")
            return n + 1
        }
    }

    // MARK: Members (key + value)

    public mutating func member(_ k: StaticString, _ v: Int64) {
        let comma = separate()
        let keyBytes = k.utf8CodeUnitCount
        appendToken(comma: comma, capacity: keyBytes + 3 + 20) { p in
            let n = Self.writeKey(k, to: p)
            return n + Self.writeInteger(v, to: p + n)
        }
    }

    public mutating func member(_ k: StaticString, _ v: String) {
        let comma = separate()
        appendToken(comma: comma, capacity: k.utf8CodeUnitCount + 4) { p in
            let n = Self.writeKey(k, to: p)
            p[n] = UInt8(ascii: "\"")
            return n + 1
        }
        appendEscapedBody(v)
    }

    /// A string member from its UTF-8 bytes (whole UTF-8, e.g. a line's `withMethodUTF8`): the same
    /// bytes as `member(k, String(decoding: utf8, as: UTF8.self))`, without making the `String`.
    public mutating func member(_ k: StaticString, utf8 v: UnsafeBufferPointer<UInt8>) {
        let comma = separate()
        appendToken(comma: comma, capacity: k.utf8CodeUnitCount + 4) { p in
            let n = Self.writeKey(k, to: p)
            p[n] = UInt8(ascii: "\"")
            return n + 1
        }
        appendEscapedBody(utf8: v)
    }

    public mutating func member(_ k: StaticString, _ v: Rational) { key(k); value(v) }
    public mutating func member(_ k: StaticString, _ v: Bool) { key(k); value(v) }

    // MARK: Internals

    private mutating func open(_ bracket: UInt8) {
        let comma = separate()
        if comma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(bracket)
        depth += 1
        if depth <= 64 {
            commaBits &= ~(1 << UInt64(depth - 1))
        } else {
            deepNeedsComma.append(false)
        }
    }

    private mutating func close(_ bracket: UInt8) {
        precondition(depth > 0, "JSONWriter: closing a container that is not open")
        if depth > 64 { deepNeedsComma.removeLast() }
        depth -= 1
        bytes.append(bracket)
    }

    /// Whether the value about to be written needs a leading comma (and records that the next one will).
    @inline(__always)
    private mutating func separate() -> Bool {
        if afterKey { afterKey = false; return false }
        guard depth > 0 else { return false }
        if depth <= 64 {
            let bit: UInt64 = 1 << UInt64(depth - 1)
            defer { commaBits |= bit }
            return commaBits & bit != 0
        }
        defer { deepNeedsComma[deepNeedsComma.count - 1] = true }
        return deepNeedsComma[deepNeedsComma.count - 1]
    }

    /// Appends an optional comma and then up to `capacity` bytes that `write` puts at the pointer
    /// it gets (returning how many), with a single append to `bytes`.
    @inline(__always)
    private mutating func appendToken(comma: Bool, capacity: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity + 1) { scratch in
            guard let base = scratch.baseAddress else { return }
            var n = 0
            if comma { base[0] = UInt8(ascii: ","); n = 1 }
            n += write(base + n)
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: n))
        }
    }

    private mutating func appendKey(_ key: StaticString, comma: Bool) {
        appendToken(comma: comma, capacity: key.utf8CodeUnitCount + 3) { p in Self.writeKey(key, to: p) }
    }

    private mutating func appendLiteral(_ literal: StaticString, comma: Bool) {
        if comma { bytes.append(UInt8(ascii: ",")) }
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// `"key":` at `p`; returns its length (key + 3).
    @inline(__always)
    private static func writeKey(_ key: StaticString, to p: UnsafeMutablePointer<UInt8>) -> Int {
        let count = key.utf8CodeUnitCount
        p[0] = UInt8(ascii: "\"")
        (p + 1).update(from: key.utf8Start, count: count)
        p[count + 1] = UInt8(ascii: "\"")
        p[count + 2] = UInt8(ascii: ":")
        return count + 3
    }

    /// The decimal digits of `v` (with a leading `-` when negative) at `p`; returns their count
    /// (≤ 20: |Int64.min| has 19 digits).
    @inline(__always)
    private static func writeInteger(_ v: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        var m = v.magnitude
        var digitCount = 1
        var power: UInt64 = 10
        while digitCount < 19 && m >= power { digitCount += 1; power &*= 10 }
        let sign = v < 0 ? 1 : 0
        if sign == 1 { p[0] = UInt8(ascii: "-") }
        var i = sign + digitCount
        repeat {
            i -= 1
            p[i] = UInt8(truncatingIfNeeded: m % 10) &+ UInt8(ascii: "0")
            m /= 10
        } while m > 0
        return sign + digitCount
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// The escaped text of `s` and its closing quote (the opening one is written by the caller).
    private mutating func appendEscapedBody(_ s: String) {
        var s = s
        s.withUTF8 { appendEscapedBody(utf8: $0) }
    }

    /// `appendEscapedBody` of UTF-8 bytes.
    private mutating func appendEscapedBody(utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var i = Self.firstEscapeCandidate(utf8, from: 0)
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
        bytes.append(UInt8(ascii: "\""))
    }

    /// The index of the first byte at or after `start` that may need escaping (below 0x20, `"` or
    /// `\`), or `utf8.count`: eight bytes per step (a byte-wise test of whole words), so text
    /// without such bytes — every 계산방법 — is skipped quickly. Public for `PayslipLineJSON`,
    /// which must escape exactly as this writer does.
    @inlinable @inline(__always)
    public static func firstEscapeCandidate(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = utf8.baseAddress else { return utf8.count }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var i = start
        while i + 8 <= utf8.count {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            // A byte below 0x20 (excluding bytes ≥ 0x80, which are never below 0x20), or equal to 0x22 or 0x5C.
            let below20 = (w &- ones &* 0x20) & ~w & highs
            let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
            let isQuote = (quote &- ones) & ~quote & highs
            let isBackslash = (backslash &- ones) & ~backslash & highs
            if below20 | isQuote | isBackslash != 0 { return i }
            i += 8
        }
        return i
    }
}
