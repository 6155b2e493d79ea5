/// A contract's scheduled minutes per weekday (Monday first), held inline: reading the
/// `Contract.scheduleMinutes` array once into this value lets the classifier keep the schedule
/// without retaining the array. On the batch path that array is shared by every contract of a
/// chunk with the same schedule (`ChunkLoader`'s schedule table), i.e. by employees computed on
/// both cores at once: each retain and release of it was an atomic write to a cache line the
/// other core writes too.
struct WeekSchedule: Sendable {
    private var minutes: SIMD8<Int32> = .zero

    /// The first 7 entries of `scheduleMinutes` (fewer leave the rest 0; the calculator checks
    /// there are exactly 7 before it builds one).
    init(_ scheduleMinutes: [Int32]) {
        scheduleMinutes.withUnsafeBufferPointer { m in
            for i in 0..<min(m.count, 7) { minutes[i] = m[i] }
        }
    }

    /// The schedule of `input.contract`, each entry read in place: passed on its own, the
    /// contract's array made the calculator copy the whole contract first (an outlined copy and
    /// destroy of every field, a retain and release of the array, once per employee).
    init(contractOf input: borrowing PayrollInput) {
        for i in 0..<min(input.contract.scheduleMinutes.count, 7) { minutes[i] = input.contract.scheduleMinutes[i] }
    }

    /// Minutes scheduled on weekday `index` (0 = Monday … 6 = Sunday).
    @inline(__always)
    subscript(index: Int) -> Int32 {
        assert(index >= 0 && index < 7, "weekday index")
        return minutes[index & 7]
    }
}
