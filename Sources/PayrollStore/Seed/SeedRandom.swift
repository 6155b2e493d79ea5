/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and the same on every platform, so a seed
/// gives the same store everywhere. No Foundation randomness anywhere in seeding.
struct SeedRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// An independent stream for item `index` of kind `stream` under `seed`: the streams of
    /// different items do not depend on how many numbers another item drew.
    init(seed: UInt64, stream: UInt64, index: UInt64) {
        var mixer = SeedRandom(seed: seed ^ (stream &* 0xD6E8_FEB8_6659_FD93))
        state = mixer.next() ^ (index &* 0x9E37_79B9_7F4A_7C15)
        _ = next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<bound` (bound > 0; the modulo bias is negligible for synthetic data).
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(next() % UInt64(bound))
    }

    /// True with probability `perMille`/1000.
    mutating func chance(perMille: Int) -> Bool { below(1000) < perMille }

    /// One of `choices` (non-empty).
    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
}
