/// Builds a 계산방법 text in stack scratch and makes one exact-size `String` at the end: one
/// allocation and one UTF-8 check per line on the batch path (measured ~3× cheaper than chains of
/// `String.append`; no `Character` iteration, no Foundation). A text longer than `capacityBytes`
/// is cut at the limit (never expected: the longest is about 260 bytes; a debug assertion guards).
struct MethodText {
    static let capacityBytes = 512

    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    /// Runs `build` on an empty text and returns it as a `String`.
    @inline(__always)
    static func make(_ build: (inout MethodText) -> Void) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacityBytes) { scratch in
            var text = MethodText(scratch)
            build(&text)
            return String(decoding: UnsafeBufferPointer(rebasing: scratch[..<text.count]), as: UTF8.self)
        }
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = min(bytes.count, buffer.count - count)
        assert(n == bytes.count, "method text over \(MethodText.capacityBytes) bytes")
        guard n > 0, let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        (target + count).update(from: source, count: n)
        count += n
    }

    @inline(__always)
    mutating func add(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// A `String` piece (a printed rate, a name). Literals take the `StaticString` overload.
    @_disfavoredOverload
    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
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
        var digitCount = 1
        var rest = magnitude / 10
        while rest > 0 { digitCount += 1; rest /= 10 }
        let length = digitCount + (grouped ? (digitCount - 1) / 3 : 0) + (negative ? 1 : 0)
        guard let target = buffer.baseAddress, length <= buffer.count - count else {
            assertionFailure("method text over \(MethodText.capacityBytes) bytes")
            return
        }
        var v = magnitude
        var i = count + length
        var written = 0
        repeat {
            if grouped && written > 0 && written % 3 == 0 {
                i -= 1
                target[i] = UInt8(ascii: ",")
            }
            i -= 1
            target[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
            written += 1
        } while v > 0
        if negative {
            i -= 1
            target[i] = UInt8(ascii: "-")
        }
        assert(i == count, "digit count")
        count += length
    }
}
