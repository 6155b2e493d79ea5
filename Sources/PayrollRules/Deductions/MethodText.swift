/// Builds a 계산방법 text in stack scratch and makes one exact-size `String` at the end: one
/// allocation per line on the batch path (measured ~3× cheaper than chains of `String.append`;
/// no `Character` iteration, no Foundation). The text is whole UTF-8 by construction — static
/// literals, whole `String`s and ASCII digits — so the `String` is made without a second UTF-8
/// check (`UTF8Span(unchecked:)`; that check was about half the cost of a text, ~500 instructions
/// for a line of 60 bytes, callgrind). A text longer than `capacityBytes` is cut at the limit
/// (never expected: the longest is about 260 bytes; a debug assertion guards); a cut can split a
/// character, so such a text is checked (and repaired) as before.
struct MethodText {
    static let capacityBytes = 512

    /// "00", "01", … "99" back to back.
    static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0
    /// Whether a piece was cut at the capacity (then the bytes may end inside a character).
    private(set) var wasCut = false

    /// A text written into `buffer` (at most `capacityBytes`; a smaller one is a window of a
    /// `MethodTextBlock`, whose overflow is expected and handled there, so not asserted).
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        assert(buffer.count <= MethodText.capacityBytes, "method text buffer")
        self.buffer = buffer
    }

    /// A cut is a bug (asserted) only at the full capacity.
    private var assertsFit: Bool { buffer.count == MethodText.capacityBytes }

    /// Runs `build` on an empty text and returns it as a `String`.
    @inline(__always)
    static func make(_ build: (inout MethodText) -> Void) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacityBytes) { scratch in
            var text = MethodText(scratch)
            build(&text)
            let bytes = UnsafeBufferPointer(rebasing: scratch[..<text.count])
            if text.wasCut { return String(decoding: bytes, as: UTF8.self) }
            return String(copying: UTF8Span(unchecked: bytes.span))
        }
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = min(bytes.count, buffer.count - count)
        assert(n == bytes.count || !assertsFit, "method text over \(MethodText.capacityBytes) bytes")
        if n < bytes.count { wasCut = true }
        guard n > 0, let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        (target + count).update(from: source, count: n)
        count += n
    }

    @inline(__always)
    mutating func add(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// A `String` piece (a printed rate, a name). Literals go through `add(_:)` as `StaticString`
    /// (no copy, no `withUTF8`).
    /// Reads a native string's bytes in place: no copy of `text`, so no retain and release of a
    /// printed rate shared by every employee (both cores would write its reference count).
    mutating func add(string text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { append($0) }
        if done == nil {
            var text = text
            text.withUTF8 { append($0) }
        }
    }

    /// An amount with thousands separators, as `Money.grouped` prints it: `1,692,480`.
    @inline(__always)
    mutating func won(_ x: Int64) {
        digits(x.magnitude, negative: x < 0, grouped: true)
    }

    /// A plain integer: `12`.
    @inline(__always)
    mutating func int(_ x: Int) {
        digits(UInt64(x.magnitude), negative: x < 0, grouped: false)
    }

    /// Writes the decimal digits (with a comma every three when `grouped`) backwards, straight
    /// into the buffer at their final place.
    private mutating func digits(_ magnitude: UInt64, negative: Bool, grouped: Bool) {
        let digitCount = MethodText.decimalDigits(magnitude)
        let length = digitCount + (grouped ? (digitCount - 1) / 3 : 0) + (negative ? 1 : 0)
        guard let target = buffer.baseAddress, length <= buffer.count - count else {
            wasCut = true
            assert(!assertsFit, "method text over \(MethodText.capacityBytes) bytes")
            return
        }
        var v = magnitude
        var i = count + length
        // Two digits per division, from a table of "00" … "99"; groups of three when `grouped`.
        let pairs = MethodText.digitPairs.utf8Start
        if grouped {
            while v >= 1000 {
                let group = Int(truncatingIfNeeded: v % 1000)
                v /= 1000
                let pair = group % 100 * 2
                i -= 4
                target[i] = UInt8(ascii: ",")
                target[i + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: group / 100)
                target[i + 2] = pairs[pair]
                target[i + 3] = pairs[pair + 1]
            }
        } else {
            while v >= 100 {
                let pair = Int(truncatingIfNeeded: v % 100) * 2
                v /= 100
                i -= 2
                target[i] = pairs[pair]
                target[i + 1] = pairs[pair + 1]
            }
        }
        // The leading 1–3 digits (below 1000 when grouped, below 100 otherwise).
        if v >= 100 {
            let pair = Int(truncatingIfNeeded: v % 100) * 2
            i -= 3
            target[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v / 100)
            target[i + 1] = pairs[pair]
            target[i + 2] = pairs[pair + 1]
        } else if v >= 10 {
            let pair = Int(truncatingIfNeeded: v) * 2
            i -= 2
            target[i] = pairs[pair]
            target[i + 1] = pairs[pair + 1]
        } else {
            i -= 1
            target[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v)
        }
        if negative {
            i -= 1
            target[i] = UInt8(ascii: "-")
        }
        assert(i == count, "digit count")
        count += length
    }

    /// Decimal digits of `m`: four per (constant, so multiplying) division, then one to three.
    @inline(__always)
    static func decimalDigits(_ m: UInt64) -> Int {
        var m = m, n = 1
        while m >= 10_000 { m /= 10_000; n += 4 }
        return m >= 1_000 ? n + 3 : m >= 100 ? n + 2 : m >= 10 ? n + 1 : n
    }
}
