/// Delay before a failed (or lease-expired) job is claimable again: exponential in the attempt
/// number, capped, with "equal jitter" (a uniformly random point in the upper half), so jobs that
/// failed together do not come back together.
///
/// delay(attempt) = min(cap, base × 2^(attempt−1)) × U[0.5, 1)
public struct RetryBackoff: Sendable, Equatable {
    public var baseMilliseconds: Int
    public var capMilliseconds: Int

    public init(baseMilliseconds: Int, capMilliseconds: Int) {
        precondition(baseMilliseconds >= 0 && capMilliseconds >= baseMilliseconds, "backoff: 0 ≤ base ≤ cap")
        self.baseMilliseconds = baseMilliseconds
        self.capMilliseconds = capMilliseconds
    }

    /// 1 s, 2 s, 4 s, … up to 10 minutes (before jitter).
    public static let standard = RetryBackoff(baseMilliseconds: 1_000, capMilliseconds: 600_000)
}
