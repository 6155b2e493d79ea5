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
        let n = bytes.count
        guard n <= buffer.count - count, let source = bytes.baseAddress, let target = buffer.baseAddress else {
            return appendCut(bytes)
        }
        MethodText.copy(UnsafeRawPointer(source), to: UnsafeMutableRawPointer(target + count), count: n)
        count += n
    }

    /// `append` of bytes that do not all fit (or are empty): what fits, and `wasCut` when not all.
    @inline(never)
    private mutating func appendCut(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = min(bytes.count, buffer.count - count)
        assert(n == bytes.count || !assertsFit, "method text over \(MethodText.capacityBytes) bytes")
        if n < bytes.count { wasCut = true }
        guard n > 0, let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        (target + count).update(from: source, count: n)
        count += n
    }

    /// Copies `n` bytes. The pieces of a text are mostly literals of 1–32 bytes: those are copied
    /// with two (or four) overlapping unaligned words, inline, instead of a call to `memcpy`
    /// (measured: a `memcpy` call per piece was ~1k instructions per payslip).
    @inline(__always)
    static func copy(_ source: UnsafeRawPointer, to target: UnsafeMutableRawPointer, count n: Int) {
        if n >= 8 {
            if n <= 16 {
                let a = source.loadUnaligned(as: UInt64.self)
                let b = source.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
                target.storeBytes(of: a, as: UInt64.self)
                target.storeBytes(of: b, toByteOffset: n - 8, as: UInt64.self)
            } else if n <= 32 {
                let a = source.loadUnaligned(as: UInt64.self)
                let b = source.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                let c = source.loadUnaligned(fromByteOffset: n - 16, as: UInt64.self)
                let d = source.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
                target.storeBytes(of: a, as: UInt64.self)
                target.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
                target.storeBytes(of: c, toByteOffset: n - 16, as: UInt64.self)
                target.storeBytes(of: d, toByteOffset: n - 8, as: UInt64.self)
            } else {
                target.copyMemory(from: source, byteCount: n)
            }
        } else if n >= 4 {
            let a = source.loadUnaligned(as: UInt32.self)
            let b = source.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            target.storeBytes(of: a, as: UInt32.self)
            target.storeBytes(of: b, toByteOffset: n - 4, as: UInt32.self)
        } else if n > 0 {
            // 1–3 bytes: the first, the middle and the last (overlapping when fewer).
            let a = source.load(as: UInt8.self)
            let b = source.load(fromByteOffset: n >> 1, as: UInt8.self)
            let c = source.load(fromByteOffset: n - 1, as: UInt8.self)
            target.storeBytes(of: a, as: UInt8.self)
            target.storeBytes(of: b, toByteOffset: n >> 1, as: UInt8.self)
            target.storeBytes(of: c, toByteOffset: n - 1, as: UInt8.self)
        }
    }

    @inline(__always)
    mutating func add(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Bytes printed once and kept (a schedule's printed rate, `PrintedText`): copied inline.
    @inline(__always)
    mutating func add(_ text: PrintedText) {
        append(text.utf8)
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
    /// into the buffer at their final place. Inlined (with `grouped` and `negative` then mostly
    /// constants): as a call it cost ~20 instructions of calling convention per number, ~30
    /// numbers per payslip.
    @inline(__always)
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

    /// Decimal digits of `m` (1 for 0). t = ⌊bits × log10 2⌋ (1233/4096, exact for 1 … 64 bits)
    /// gives 10^(t−1) ≤ x < 10^(t+1) for x of that bit length, so x has t or t + 1 digits: one
    /// comparison with 10^t decides. x = m | 1 has the digits of m (powers of ten from 10 on are
    /// even) and makes 0 count one digit.
    @inline(__always)
    static func decimalDigits(_ m: UInt64) -> Int {
        let x = m | 1
        let bits = 64 - x.leadingZeroBitCount
        let t = (bits &* 1233) >> 12
        return x >= powerOfTen(t) ? t &+ 1 : t
    }

    /// 10^k for k in 0 … 19 (a constant table; no lazily initialized global on the hot path).
    @inline(__always)
    static func powerOfTen(_ k: Int) -> UInt64 {
        switch k {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        default: 10_000_000_000_000_000_000
        }
    }
}
