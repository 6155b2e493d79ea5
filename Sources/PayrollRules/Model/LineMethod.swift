/// The stored 계산방법 text of one earnings or deduction line (`EarningLine.method`,
/// `DeductionLine.method`): either a `String` of its own, or a range of a block — one buffer
/// holding the texts of all the lines one calculator made for a payslip, back to back
/// (`MethodTextBlock`). The batch path thus makes one allocation for the ~5 texts of a side
/// instead of one each, and frees one; encoders read the bytes in place (`withUTF8`) and never
/// make the line's own `String`. Equality and hashing are those of the text, whatever the storage.
/// `@usableFromInline` so that encoders in other modules read the bytes inlined (a call into the
/// unspecialized generic `withUTF8` cost more than the text it read).
@usableFromInline
struct LineMethod: Sendable, Hashable {
    /// `@unchecked Sendable`: a block is never written after `MethodBlockStorage.make` (and
    /// `ManagedBuffer` subclasses cannot conform to `Sendable` themselves).
    @usableFromInline enum Storage: @unchecked Sendable {
        /// A text of its own (the public initializers and setters).
        case text(String)
        /// `count` bytes at `start` of `block`.
        case block(MethodBlockStorage, start: UInt32, count: UInt32)
        /// A range of a block not made yet (`MethodTextBlock` attaches it).
        case pending(start: UInt32, count: UInt32)
    }

    @usableFromInline var storage: Storage

    /// A text stored as its own `String`.
    init(_ text: String) {
        storage = .text(text)
    }

    /// `count` bytes at `start` of the block `attach(to:)` will set (until then the text is empty).
    init(pendingAt start: Int, count: Int) {
        assert(start >= 0 && count >= 0 && start + count <= Int(UInt32.max), "block range")
        storage = .pending(start: UInt32(truncatingIfNeeded: start), count: UInt32(truncatingIfNeeded: count))
    }

    /// Sets the block of a text made with `init(pendingAt:count:)`; a text of its own is unchanged.
    @inline(__always)
    mutating func attach(to block: MethodBlockStorage) {
        if case .pending(let start, let count) = storage {
            assert(Int(start) + Int(count) <= block.header, "LineMethod range outside its block")
            storage = .block(block, start: start, count: count)
        }
    }

    /// The text as a `String`: the stored one, or a copy of the block's range.
    var text: String {
        if case .text(let s) = storage { return s }
        return withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    var isEmpty: Bool {
        switch storage {
        case .text(let s): s.isEmpty
        case .block(_, _, let count), .pending(_, let count): count == 0
        }
    }

    /// Runs `body` on the text's UTF-8, in place: a block's bytes are read through the borrowed
    /// line (no retain and release of the block, no closure of the stdlib's); a text of its own
    /// through `withContiguousStorageIfAvailable`.
    @inlinable @inline(__always)
    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch storage {
        case .block(let block, let start, let count):
            return block.withUnsafeMutablePointerToElements { bytes in
                body(UnsafeBufferPointer(start: bytes + Int(start), count: Int(count)))
            }
        case .text(let text):
            if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
            var copy = text  // not native (never on the batch path)
            return copy.withUTF8(body)
        case .pending:
            return body(UnsafeBufferPointer(start: nil, count: 0))
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

