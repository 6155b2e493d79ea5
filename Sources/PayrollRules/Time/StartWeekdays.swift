/// The weekdays shifts start on, week by week: for each week (7 days from the contract's
/// `weekStart`) in which at least one shift starts, its first day and a 7-bit mask of the
/// weekdays (bit = `Weekday.rawValue`) on which a shift of it starts; ascending by week, each
/// week once. `WorkClassifier` records it as it meets each shift-start day (it already takes the
/// day's weekday and week apart), and `WeeklyAllowance` reads its 개근 test from it instead of
/// walking the shifts again (a day and a weekday per shift per employee). Held inline up to
/// `inlineCapacity` weeks (a month's shifts and the weeks around it fit); more go to `spill`.
struct StartWeekdays: Sendable {
    static let inlineCapacity = 8

    private var weekFirstDays = SIMD8<Int64>()
    /// The masks of the inline weeks, one byte each (week k in bits 8k … 8k + 6).
    private var inlineMasks: UInt64 = 0
    private var spill: [(weekFirstDay: Int64, mask: UInt8)] = []
    private(set) var count = 0

    /// The first day of week `k` (0 ..< `count`).
    @inline(__always)
    func weekFirstDay(_ k: Int) -> Int64 {
        precondition(k >= 0 && k < count, "StartWeekdays index out of range")
        return k < StartWeekdays.inlineCapacity ? weekFirstDays[k] : spill[k - StartWeekdays.inlineCapacity].weekFirstDay
    }

    /// The weekday mask of week `k` (0 ..< `count`).
    @inline(__always)
    func mask(_ k: Int) -> UInt8 {
        precondition(k >= 0 && k < count, "StartWeekdays index out of range")
        return k < StartWeekdays.inlineCapacity
            ? UInt8(truncatingIfNeeded: inlineMasks >> UInt64(8 * k)) : spill[k - StartWeekdays.inlineCapacity].mask
    }

    /// Appends a week after every week appended before (`weekFirstDay` ascending).
    mutating func append(weekFirstDay: Int64, mask: UInt8) {
        assert(count == 0 || weekFirstDay > self.weekFirstDay(count - 1), "weeks in ascending order")
        if count < StartWeekdays.inlineCapacity {
            weekFirstDays[count] = weekFirstDay
            inlineMasks |= UInt64(mask) << UInt64(8 * count)
        } else {
            spill.append((weekFirstDay, mask))
        }
        count += 1
    }

    /// The mask of the week starting on `weekFirstDay` (0 when no shift starts in it). `cursor`
    /// is an index at or before that week's entry (or the first later one); it is moved there,
    /// so a caller asking for weeks in ascending order passes the same cursor on (0 is always valid).
    @inline(__always)
    func mask(ofWeekStarting weekFirstDay: Int64, cursor: inout Int) -> UInt8 {
        var k = max(0, cursor)
        while k < count && self.weekFirstDay(k) < weekFirstDay { k += 1 }
        cursor = k
        return k < count && self.weekFirstDay(k) == weekFirstDay ? mask(k) : 0
    }
}
