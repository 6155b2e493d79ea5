/// The storage of the result array, filled by concurrent work items at *disjoint* indices.
///
/// This is the one audited `@unchecked Sendable` of the engine (POSTGRES-NOTES: Swift 6 on Linux
/// makes `concurrentPerform` take a `@Sendable` closure). Safety rests on rules the caller keeps:
/// the slots are the uninitialized storage of an `Array(unsafeUninitializedCapacity:)` being built;
/// each index is stored exactly once, by one work item; the array is declared initialized only
/// after `concurrentPerform` has returned (which orders all stores before it).
///
/// The results are written straight into the returned array: no second buffer of the batch's size
/// to allocate, fault in and move from (for 50,000 payslips that was ~10 MB, a serial step after
/// the parallel one).
struct ResultSlots<Element>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Element>
    private let count: Int

    init(_ buffer: UnsafeMutableBufferPointer<Element>) {
        // The caller never builds an empty batch (it returns [] before), so there is storage.
        guard let base = buffer.baseAddress else { preconditionFailure("result storage without an address") }
        self.base = base
        self.count = buffer.count
    }

    @inline(__always)
    func store(_ value: Element, at index: Int) {
        precondition(index >= 0 && index < count, "slot index out of range")
        (base + index).initialize(to: value)
    }
}
