import Foundation
import Synchronization

/// Runs `body` on a new thread (not the Swift concurrency pool, which blocking libpq calls
/// would stall); `join()` waits for it and returns what it threw, if anything.
final class TestThread: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let failure = Mutex<(any Error)?>(nil)

    init(_ body: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            do { try body() } catch { self.failure.withLock { $0 = error } }
            self.done.signal()
        }
        thread.start()
    }

    /// Waits for the thread; returns the error its body threw, or nil.
    func join() -> (any Error)? {
        done.wait()
        return failure.withLock { $0 }
    }
}
