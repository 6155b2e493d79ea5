/// The inputs of a batch, read in place by concurrent work items (`BatchCalculator`).
///
/// Like `ResultSlots`, an audited `@unchecked Sendable` (the closure of `concurrentPerform` is
/// `@Sendable`, an `UnsafeBufferPointer` is not): the buffer is the storage of the caller's input
/// array, borrowed for the whole `withUnsafeBufferPointer` call that `concurrentPerform` runs
/// inside, and nobody writes it meanwhile; work items only read. Reading an element through it
/// borrows the element where it lies: reading `inputs[i]` of the captured array copied it first
/// (a retain and a release of each of its arrays and texts).
struct InputSlots<Element>: @unchecked Sendable {
    private let buffer: UnsafeBufferPointer<Element>

    init(_ buffer: UnsafeBufferPointer<Element>) {
        self.buffer = buffer
    }

    /// The address of element `index`, for a callee that reads it in place through `inout` and
    /// never writes it (`BatchCalculator.compute`).
    @inline(__always)
    func address(_ index: Int) -> UnsafeMutablePointer<Element> {
        precondition(index >= 0 && index < buffer.count, "input index out of range")
        // Only read through (see above): the storage is the caller's borrowed array.
        return UnsafeMutablePointer(mutating: buffer.baseAddress.unsafelyUnwrapped + index)
    }

    subscript(index: Int) -> Element {
        @inline(__always) _read {
            precondition(index >= 0 && index < buffer.count, "input index out of range")
            yield buffer[index]
        }
    }
}
