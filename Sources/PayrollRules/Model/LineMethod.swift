/// The stored 계산방법 text of one earnings or deduction line (`EarningLine.method`,
/// `DeductionLine.method`): a range of a block (`MethodBlockStorage`) — on the batch path one
/// block holds the texts of all the lines one calculator made for a payslip, back to back
/// (`MethodTextBlock`), so the ~5 texts of a side cost one allocation instead of one each, and
/// one free; a text given as a `String` (public initializers, setters) gets a block of its own.
/// Encoders read the bytes in place (`withUTF8`) and never make the line's `String`. 16 bytes,
/// as the `String` it replaces; equality and hashing are those of the text.
/// `@usableFromInline` so that encoders in other modules read the bytes inlined (a call into the
/// unspecialized generic `withUTF8` cost more than the text it read).
@usableFromInline
struct LineMethod: @unchecked Sendable, Hashable {
    // Plain fields, not an enum with payloads: reading the block through a borrowed line then
    // needs no copy of a payload (a retain and release per text, callgrind). `@unchecked
    // Sendable`: a block is never written after it is made (and `ManagedBuffer` subclasses
    // cannot conform to `Sendable`).
    /// The block holding the text at `start`; nil until `attach(to:)` for a pending range.
    @usableFromInline var block: MethodBlockStorage?
    @usableFromInline var start: UInt32
    @usableFromInline var count: UInt32

    /// A text stored in a block of its own.
    init(_ text: String) {
        start = 0
        guard !text.isEmpty else {  // no block for nothing
            block = nil
            count = 0
            return
        }
        var text = text
        let block = text.withUTF8 { MethodBlockStorage.make($0) }
        assert(block.header <= Int(UInt32.max), "method text over 4 GiB")
        self.block = block
        count = UInt32(truncatingIfNeeded: block.header)
    }

    /// `count` bytes at `start` of the block `attach(to:)` will set (until then the text is empty).
    init(pendingAt start: Int, count: Int) {
        assert(start >= 0 && count >= 0 && start + count <= Int(UInt32.max), "block range")
        block = nil
        self.start = UInt32(truncatingIfNeeded: start)
        self.count = UInt32(truncatingIfNeeded: count)
    }

    /// Sets the block of a text made with `init(pendingAt:count:)` (one without a block yet).
    @inline(__always)
    mutating func attach(to block: MethodBlockStorage) {
        if self.block == nil {
            assert(Int(start) + Int(count) <= block.header, "LineMethod range outside its block")
            self.block = block
        }
    }

    /// The text as a `String` (a copy of the bytes).
    var text: String {
        withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    var isEmpty: Bool { count == 0 }

    /// Runs `body` on the text's UTF-8, in place (through the borrowed line: no retain of the block).
    @inlinable @inline(__always)
    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let block else { return body(UnsafeBufferPointer(start: nil, count: 0)) }  // pending
        return block.withUnsafeMutablePointerToElements { bytes in
            body(UnsafeBufferPointer(start: bytes + Int(start), count: Int(count)))
        }
    }

    @usableFromInline static func == (a: LineMethod, b: LineMethod) -> Bool {
        a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    @usableFromInline func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// The bytes of one `MethodTextBlock` (the header is their count), immutable once made.
@usableFromInline
final class MethodBlockStorage: ManagedBuffer<Int, UInt8> {
    /// A block holding a copy of `bytes`.
    static func make(_ bytes: UnsafeBufferPointer<UInt8>) -> MethodBlockStorage {
        let buffer = MethodBlockStorage.create(minimumCapacity: max(bytes.count, 1)) { _ in bytes.count }
        buffer.withUnsafeMutablePointerToElements { target in
            if let source = bytes.baseAddress { target.update(from: source, count: bytes.count) }
        }
        return unsafeDowncast(buffer, to: MethodBlockStorage.self)
    }
}

extension EarningLine {
    /// A line whose `method` is stored as `methodText` (a range of a payslip's text block).
    init(code: EarningCode, minutes: Int64?, rate: Rational?, multiplier: String?, amount: Int64, methodText: LineMethod) {
        self.code = code
        self.minutes = minutes
        self.rate = rate
        self.multiplier = multiplier
        self.amount = amount
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
        self.code = code
        self.base = base
        self.amount = amount
        self.methodText = methodText
    }

    /// Runs `body` on the UTF-8 bytes of `method`, read in place (see `EarningLine.withMethodUTF8`).
    @inlinable @inline(__always)
    public func withMethodUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        methodText.withUTF8(body)
    }
}

