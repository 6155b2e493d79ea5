/// Where a shift's breaks fall (calc-api pinned rule 5) and whether they meet §54.
///
/// A shift's work is `[start, end)` minus its break windows. Explicit `breaks` win; otherwise
/// `breakMinutes` (else the contract's `defaultBreakMinutes`) become one window centred on the
/// shift's midpoint: start = midpoint − ⌊b/2⌋, the midpoint of an odd-length shift floored.
enum ShiftBreaks {
    /// The single break window placed around the midpoint, `[start, end)` in Korea minutes.
    @inline(__always)
    static func centredWindow(shiftStart: Int64, shiftEnd: Int64, breakMinutes: Int64) -> (start: Int64, end: Int64) {
        let midpoint = shiftStart + (shiftEnd - shiftStart) / 2
        let start = midpoint - breakMinutes / 2
        return (start, start + breakMinutes)
    }

    /// Validates the breaks of `shifts[i]` (`i` also for error paths) and returns the total break
    /// minutes and the break minutes that count for §54 (those strictly inside the shift: a
    /// break at the very start or end is not "근로시간 도중"). The shift is read in place in its
    /// array: a copy of it retained and released its break array, once per shift of a batch.
    @inline(__always)
    static func validate(_ shifts: [Shift], index i: Int, defaultBreakMinutes: Int32?)
        throws(PayrollError) -> (totalMinutes: Int64, statutoryMinutes: Int64) {
        let s = shifts[i].start.value, e = shifts[i].end.value
        if !shifts[i].breaks.isEmpty {
            var cursor = s
            var total: Int64 = 0, inside: Int64 = 0
            for j in shifts[i].breaks.indices {
                let bs = shifts[i].breaks[j].start.value, be = shifts[i].breaks[j].end.value
                guard be > bs else {
                    throw PayrollError(.invalidValue, "a break must end after it starts", field: "shifts[\(i)].breaks[\(j)].end")
                }
                guard bs >= cursor, be <= e else {
                    throw PayrollError(.invalidValue, "breaks must lie inside the shift, in order, without overlapping",
                                       field: "shifts[\(i)].breaks[\(j)].start")
                }
                total += be - bs
                if bs > s && be < e { inside += be - bs }
                cursor = be
            }
            return (total, inside)
        }
        // The field path is built only on the error path (this runs for every shift of a batch).
        let given = shifts[i].breakMinutes
        func field() -> String { given != nil ? "shifts[\(i)].breakMinutes" : "contract.defaultBreakMinutes" }
        let b = Int64(given ?? defaultBreakMinutes ?? 0)
        guard b >= 0 else { throw PayrollError(.invalidValue, "break minutes must not be negative", field: field()) }
        guard b <= e - s else {
            throw PayrollError(.invalidValue, "break of \(b) minutes is longer than the \(e - s)-minute shift", field: field())
        }
        guard b > 0 else { return (0, 0) }
        let w = centredWindow(shiftStart: s, shiftEnd: e, breakMinutes: b)
        return (b, (w.start > s && w.end < e) ? b : 0)
    }

    /// `validate` of a shift of an input that passed `PayrollInput.validated()` (its breaks lie
    /// inside it, in order, and are shorter than it), without the checks, which would pass.
    @inline(__always)
    static func measure(_ shifts: [Shift], index i: Int, defaultBreakMinutes: Int32?) -> (totalMinutes: Int64, statutoryMinutes: Int64) {
        let s = shifts[i].start.value, e = shifts[i].end.value
        if !shifts[i].breaks.isEmpty {
            var total: Int64 = 0, inside: Int64 = 0
            for j in shifts[i].breaks.indices {
                let bs = shifts[i].breaks[j].start.value, be = shifts[i].breaks[j].end.value
                total += be - bs
                if bs > s && be < e { inside += be - bs }
            }
            return (total, inside)
        }
        let b = Int64(shifts[i].breakMinutes ?? defaultBreakMinutes ?? 0)
        guard b > 0 else { return (0, 0) }
        let w = centredWindow(shiftStart: s, shiftEnd: e, breakMinutes: b)
        return (b, (w.start > s && w.end < e) ? b : 0)
    }
}
