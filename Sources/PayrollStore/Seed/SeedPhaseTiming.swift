/// Wall time of one phase of a seed: `copy shifts` (summed over the blocks), `analyze`,
/// `restore shifts_pkey`, `commit`, …, in the order the phases first ran.
public struct SeedPhaseTiming: Sendable, Equatable {
    public var name: String
    public var elapsed: Duration

    public init(name: String, elapsed: Duration) {
        self.name = name
        self.elapsed = elapsed
    }
}

/// Accumulates phase times; a phase run several times (one COPY per block) adds up.
struct SeedPhaseClock {
    private let clock = ContinuousClock()
    private(set) var phases: [SeedPhaseTiming] = []

    @discardableResult
    mutating func measure<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let started = clock.now
        let value = try body()
        let elapsed = clock.now - started
        if let i = phases.firstIndex(where: { $0.name == name }) {
            phases[i].elapsed += elapsed
        } else {
            phases.append(SeedPhaseTiming(name: name, elapsed: elapsed))
        }
        return value
    }
}
