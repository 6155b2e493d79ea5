/// A text printed once (a schedule's rate, `4.75%`) with its UTF-8 bytes in a buffer of its own,
/// so that a 계산방법 text copies them inline (`MethodText.add(_:)`) instead of reading a `String`'s
/// storage through `withContiguousStorageIfAvailable` (a call and a closure, ~60 instructions,
/// six times per payslip). The owner frees the buffer (`free()`) in its `deinit`; the schedules
/// holding these live as long as the process.
struct PrintedText: @unchecked Sendable {
    /// The text itself (what the public API and tests read).
    let text: String
    /// A copy of `text`'s UTF-8, owned by whoever made this (freed by `free()`).
    let utf8: UnsafeBufferPointer<UInt8>

    init(_ text: String) {
        self.text = text
        let bytes = Array(text.utf8)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = buffer.initialize(from: bytes)
        self.utf8 = UnsafeBufferPointer(rebasing: buffer[..<bytes.count])
    }

    /// Frees the bytes (once, by the owner, when it goes away).
    func free() {
        UnsafeMutableRawPointer(mutating: utf8.baseAddress)?.deallocate()
    }
}
