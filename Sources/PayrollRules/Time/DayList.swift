/// A short list of `(day, minutes)` entries of one employee-period (the paid holidays, the 주휴일
/// of the paid weeks), held inline up to `inlineCapacity` entries: a month has at most five of
/// either, so the list costs no heap allocation (an array of them cost one allocation, a growth
/// or two and a free per employee). Entries past the inline ones (long periods) go to `spill`.
/// Order is the order of `append`.
struct DayList: RandomAccessCollection, Sendable {
    static let inlineCapacity = 8

    private var days = SIMD8<Int64>()
    private var minutes = SIMD8<Int64>()
    private var spill: [(day: Int64, minutes: Int64)] = []
    private(set) var count = 0

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(index: Int) -> (day: Int64, minutes: Int64) {
        precondition(index >= 0 && index < count, "DayList index out of range")
        return index < DayList.inlineCapacity ? (days[index], minutes[index]) : spill[index - DayList.inlineCapacity]
    }

    mutating func append(day: Int64, minutes m: Int64) {
        if count < DayList.inlineCapacity {
            days[count] = day
            minutes[count] = m
        } else {
            spill.append((day, m))
        }
        count += 1
    }
}
