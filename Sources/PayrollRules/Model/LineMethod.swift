/// The stored 계산방법 text of one earnings or deduction line (`EarningLine.method`,
/// `DeductionLine.method`): either a `String` of its own, or a range of a block — one native
/// `String` holding the texts of all the lines one calculator made for a payslip, back to back
/// (`MethodTextBlock`). The batch path thus makes one allocation for the ~5 texts of a side
/// instead of one each, and frees one; encoders read the bytes in place (`withUTF8`) and never
/// make the line's own `String`. Equality and hashing are those of the text, whatever the storage.
/// `@usableFromInline` so that encoders in other modules read the bytes inlined (a call into the
/// unspecialized generic `withUTF8` cost more than the text it read).
@usableFromInline
struct LineMethod: Sendable, Hashable {
    /// The text itself (`start == LineMethod.whole`), or a block holding it at `start`.
    @usableFromInline var block: String
    @usableFromInline var start: UInt32
    @usableFromInline var count: UInt32

    /// `start` of a text that is its block's whole.
    @inlinable static var whole: UInt32 { .max }

    /// A text stored as its own `String`.
    init(_ text: String) {
        block = text
        start = LineMethod.whole
        count = 0
    }

    /// `count` bytes at `start` of the block `attach(to:)` will set (until then the text is empty).
    init(pendingAt start: Int, count: Int) {
        assert(start >= 0 && start < Int(LineMethod.whole) && count >= 0 && count <= Int(UInt32.max) - start, "block range")
        block = ""
        self.start = UInt32(truncatingIfNeeded: start)
        self.count = UInt32(truncatingIfNeeded: count)
    }

    /// Sets the block of a text made with `init(pendingAt:count:)`; a text of its own is unchanged.
    @inline(__always)
    mutating func attach(to block: String) {
        if start != LineMethod.whole { self.block = block }
    }

    /// The text as a `String`: the stored one, or a copy of the block's range.
    var text: String {
        if start == LineMethod.whole { return block }
        return withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    var isEmpty: Bool {
        start == LineMethod.whole ? block.isEmpty : count == 0
    }

    /// Runs `body` on the text's UTF-8, in place (no copy of the block, no retain of it: the
    /// closures capture the range, not `self`).
    @inlinable @inline(__always)
    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let start = self.start, count = self.count
        if let result = block.utf8.withContiguousStorageIfAvailable({ LineMethod.slice($0, start, count, body) }) { return result }
        var copy = block  // not native (never on the batch path)
        return copy.withUTF8 { LineMethod.slice($0, start, count, body) }
    }

    @inlinable @inline(__always)
    static func slice<R>(_ bytes: UnsafeBufferPointer<UInt8>, _ start: UInt32, _ count: UInt32,
                         _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if start == LineMethod.whole { return body(bytes) }
        let lower = Int(start), upper = lower + Int(count)
        // A range outside its block would be a bug of `MethodTextBlock`; an empty text is safe.
        guard upper <= bytes.count else {
            assertionFailure("LineMethod range outside its block")
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
        return body(UnsafeBufferPointer(rebasing: bytes[lower..<upper]))
    }

    @usableFromInline static func == (a: LineMethod, b: LineMethod) -> Bool {
        a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    @usableFromInline func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension EarningLine {
    /// A line whose `method` is stored as `methodText` (a range of a payslip's text block).
    init(code: EarningCode, minutes: Int64?, rate: Rational?, multiplier: String?, amount: Int64, methodText: LineMethod) {
        self.init(code: code, minutes: minutes, rate: rate, multiplier: multiplier, amount: amount, method: "")
        self.methodText = methodText
    }

    /// Runs `body` on the UTF-8 bytes of `method`, read in place: what encoders use instead of
    /// `method`, which may have to make a `String`.
    @inlinable @inline(__always)
    public func withMethodUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        methodText.withUTF8(body)
    }
}

extension DeductionLine {
    /// A line whose `method` is stored as `methodText` (a range of a payslip's text block).
    init(code: DeductionCode, base: Int64?, amount: Int64, methodText: LineMethod) {
        self.init(code: code, base: base, amount: amount, method: "")
        self.methodText = methodText
    }

    /// Runs `body` on the UTF-8 bytes of `method`, read in place (see `EarningLine.withMethodUTF8`).
    @inlinable @inline(__always)
    public func withMethodUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        methodText.withUTF8(body)
    }
}

