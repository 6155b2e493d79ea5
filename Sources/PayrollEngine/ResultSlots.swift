/// A fixed-size buffer that concurrent work items fill at *disjoint* indices.
///
/// This is the one audited `@unchecked Sendable` of the engine (POSTGRES-NOTES: Swift 6 on Linux
/// makes `concurrentPerform` take a `@Sendable` closure). Safety rests on two rules the caller
/// keeps: each index is stored exactly once, by one work item; `finish()` is called only after
/// `concurrentPerform` has returned (which orders all stores before it).
final class ResultSlots<Element>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<Element>
    private let count: Int
    private var filled: Bool = false

    init(count: Int) {
        self.count = count
        self.base = UnsafeMutablePointer<Element>.allocate(capacity: count)
    }

    @inline(__always)
    func store(_ value: Element, at index: Int) {
        precondition(index >= 0 && index < count, "slot index out of range")
        (base + index).initialize(to: value)
    }

    /// Moves the elements out. Every slot must have been stored.
    func finish() -> [Element] {
        precondition(!filled, "finish() called twice")
        filled = true
        return Array(unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: base, count: count)
            initialized = count
        }
    }

    deinit {
        if !filled { base.deinitialize(count: 0) }
        base.deallocate()
    }
}
