/// Builds the 계산방법 texts of several lines of one payslip back to back in one stack scratch
/// and makes one block of them all (`finish()`, one allocation), which each line then holds a range of
/// (`LineMethod`): one allocation (and one free) per calculator call instead of one per line.
/// Each text is written by the same `MethodText` calls, into a window of the scratch, so its bytes
/// are exactly what `MethodText.make` makes of the same calls. A text that does not fit in what is
/// left of the scratch (or is over `MethodText.capacityBytes`) is made on its own by
/// `MethodText.make`, as before: same bytes, cut and repaired the same way.
struct MethodTextBlock {
    /// Stays within the size `withUnsafeTemporaryAllocation` puts on the stack without a check of
    /// the stack bounds (1 KiB); a payslip's deduction texts are about 450 bytes, its earnings
    /// texts about 150.
    static let capacityBytes = 1024

    private let scratch: UnsafeMutableBufferPointer<UInt8>
    /// Bytes of the scratch holding texts.
    private(set) var used = 0

    private init(_ scratch: UnsafeMutableBufferPointer<UInt8>) { self.scratch = scratch }

    /// Runs `body` with an empty block.
    @inline(__always)
    static func with<R, E: Error>(_ body: (inout MethodTextBlock) throws(E) -> R) throws(E) -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacityBytes) { (scratch) throws(E) -> R in
            var block = MethodTextBlock(scratch)
            return try body(&block)
        }
    }

    /// Writes one text: a range of the block (empty until `attach(to:)`), or a text of its own
    /// when it did not fit.
    @inline(__always)
    mutating func text(_ build: (inout MethodText) -> Void) -> LineMethod {
        let window = min(MethodText.capacityBytes, scratch.count - used)
        var text = MethodText(UnsafeMutableBufferPointer(rebasing: scratch[used..<(used + window)]))
        build(&text)
        if text.wasCut { return LineMethod(MethodText.make(build)) }
        let method = LineMethod(pendingAt: used, count: text.count)
        used += text.count
        return method
    }

    /// The texts written so far as one block.
    func finish() -> MethodBlockStorage {
        MethodBlockStorage.make(UnsafeBufferPointer(rebasing: scratch[..<used]))
    }
}

extension MethodTextBlock {
    /// One line made with a block of its own (the single-line public API, not the batch path).
    static func line(_ make: (inout MethodTextBlock) -> DeductionLine) -> DeductionLine {
        with { texts in
            var line = make(&texts)
            line.methodText.attach(to: texts.finish())
            return line
        }
    }
}
