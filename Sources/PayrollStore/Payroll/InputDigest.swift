import PayrollRules

/// SHA-256 over a canonical byte encoding of one `PayrollInput`: every field that can change a
/// payslip, in a fixed order, integers big-endian, strings length-prefixed. Two inputs with the
/// same digest produce the same payslip under the same rules; a clean run and a rerun after a
/// crash can be compared by digest.
public enum InputDigest {
    public static func digest(_ input: borrowing PayrollInput) -> [UInt8] {
        var scratch = Scratch()
        return digest(input, using: &scratch)
    }

    /// `digest(input)` with its encoding written into `scratch`, which keeps its memory for the
    /// next input: the loader digests every employee of a chunk with one buffer (an allocation and
    /// a free fewer per employee).
    ///
    /// One pass: the encoding is written into a buffer of a size that bounds it, then hashed from
    /// there (no counting pass, no array of the encoding). `Counter` still gives the exact size,
    /// for tests. The buffer is not `withUnsafeTemporaryAllocation`'s: its closure captured the
    /// input, which was copied twice per employee (every array and text retained and released).
    static func digest(_ input: borrowing PayrollInput, using scratch: inout Scratch) -> [UInt8] {
        let capacity = byteCountBound(input)
        let buffer = scratch.buffer(atLeast: capacity)
        var writer = Writer(base: buffer)
        // `encode(input, into: &writer)`, with the calendar's part copied from the scratch's.
        encodePeriod(input, into: &writer)
        scratch.writeHolidays(of: input, into: &writer)
        encodeRest(input, into: &writer)
        precondition(writer.offset <= capacity, "InputDigest's bound holds its encoding")
        return SHA256.digest(UnsafeRawBufferPointer(start: buffer, count: writer.offset))
    }

    /// The encoding buffer `digest(_:using:)` reuses: grown to the largest bound asked for, freed with it.
    struct Scratch: ~Copyable {
        private var base: UnsafeMutableRawPointer?
        private var capacity = 0

        init() {}

        mutating func buffer(atLeast byteCount: Int) -> UnsafeMutableRawPointer {
            if let base, capacity >= byteCount { return base }
            base?.deallocate()
            // Room for a larger input next time without growing again.
            capacity = max(byteCount, 4096)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
            base = grown
            return grown
        }

        /// The calendar part of the encoding (`encodeHolidays`) of the last calendar and period
        /// seen, with that calendar's entries, kept referenced: every employee of a run shares
        /// its workplace's calendar (one array), so the part is made once per run, not per
        /// employee. A kept array's buffer is never another array's, nor changed in place (it is
        /// shared), so the same buffer address means the same entries.
        private var holidaySource: [HolidayCalendar.Entry]?
        private var holidayPeriod: (start: LocalDate, end: LocalDate)?
        private var holidayBytes: [UInt8] = []

        /// Writes `encodeHolidays(input)`'s bytes, made again only when the calendar or the period changed.
        mutating func writeHolidays(of input: borrowing PayrollInput, into writer: inout Writer) {
            let cached = holidaySource?.withUnsafeBufferPointer { kept in
                InputDigest.withHolidayEntries(of: input) { $0.baseAddress == kept.baseAddress && $0.count == kept.count }
            } ?? false
            if !cached || holidayPeriod?.start != input.periodStart || holidayPeriod?.end != input.periodEnd {
                holidaySource = input.workplace.holidays?.entries ?? HolidayCalendar.korea.entries
                holidayPeriod = (input.periodStart, input.periodEnd)
                var counter = Counter()
                InputDigest.encodeHolidays(input, into: &counter)
                holidayBytes = [UInt8](unsafeUninitializedCapacity: counter.count) { bytes, count in
                    guard let start = bytes.baseAddress else { return }
                    var made = Writer(base: UnsafeMutableRawPointer(start))
                    InputDigest.encodeHolidays(input, into: &made)
                    count = made.offset
                }
            }
            holidayBytes.withUnsafeBytes { writer.bytes($0) }
        }

        deinit { base?.deallocate() }
    }

    /// At least the byte count of `encode(input)`: its fixed part (33 bytes of period and
    /// workplace, 59 of employee besides its id, 87 of contract besides its texts and schedule,
    /// 16 of counts), the texts' length prefixes and longest values, and per holiday, shift, break
    /// and absence the most each can take.
    static func byteCountBound(_ input: borrowing PayrollInput) -> Int {
        var breaks = 0
        input.shifts.withUnsafeBufferPointer { shifts in
            for k in shifts.indices { breaks &+= shifts[k].breaks.count }
        }
        let holidays = withHolidayEntries(of: input) { $0.count }
        return 33 + 59 + 87 + 16 + TextBytes.contract + input.employee.id.utf8.count + 8 * input.contract.scheduleMinutes.count
            + holidays * (16 + TextBytes.holidayKind) + input.shifts.count * 33 + breaks * 16
            + input.absences.count * (16 + TextBytes.absenceKind)
    }

    /// Runs `body` on the workplace calendar's entries (the built-in KR calendar when it has
    /// none), read in place: `(input.workplace.holidays ?? HolidayCalendar.korea).entries` copied
    /// the calendar (a retain and a release of each of its two arrays, twice per employee).
    @inline(__always)
    static func withHolidayEntries<R>(of input: borrowing PayrollInput,
                                      _ body: (UnsafeBufferPointer<HolidayCalendar.Entry>) -> R) -> R {
        // One optional level more than `R` (generic: never flattened), so a nil `R` is returned as it is.
        if let result = input.workplace.holidays?.entries.withUnsafeBufferPointer(body) {
            return result
        }
        return HolidayCalendar.korea.entries.withUnsafeBufferPointer(body)
    }

    /// The longest UTF-8 of the enums' raw values (with their length prefixes for the contract's six texts).
    private enum TextBytes {
        static func longest<T: RawRepresentable & CaseIterable>(_: T.Type) -> Int where T.RawValue == String {
            T.allCases.map(\.rawValue.utf8.count).max() ?? 0
        }
        static let contract = 6 * 8 + longest(WageType.self) + 4 * longest(AllowanceSwitch.self) + longest(TaxMode.self)
        static let holidayKind = longest(HolidayKind.self)
        static let absenceKind = longest(AbsenceKind.self)
    }

    static func encode<E: Encoding>(_ input: borrowing PayrollInput, into encoding: inout E) {
        encodePeriod(input, into: &encoding)
        encodeHolidays(input, into: &encoding)
        encodeRest(input, into: &encoding)
    }

    /// The encoding's first part: the period, the pay date and the workplace's size.
    static func encodePeriod<E: Encoding>(_ input: borrowing PayrollInput, into encoding: inout E) {
        // Written through a local copy, stored back at the end: the writer's offset then stays in a
        // register (through `inout`, each store into the buffer could alias the writer itself, so
        // its offset was reloaded and stored around every field).
        var e = encoding
        defer { encoding = e }
        e.int(Int64(input.periodStart.daysSinceEpoch))
        e.int(Int64(input.periodEnd.daysSinceEpoch))
        e.int(Int64(input.payDate.daysSinceEpoch))
        e.bool(input.workplace.fiveOrMore)
    }

    /// The calendar's part: the holidays within the days around the period (`Scratch` keeps it).
    static func encodeHolidays<E: Encoding>(_ input: borrowing PayrollInput, into encoding: inout E) {
        var e = encoding
        defer { encoding = e }
        let window = (input.periodStart.adding(days: -CalcLimits.daysAroundPeriodMax),
                      input.periodEnd.adding(days: CalcLimits.daysAroundPeriodMax))
        withHolidayEntries(of: input) { entries in
            var inWindow = 0
            for k in entries.indices where entries[k].date >= window.0 && entries[k].date <= window.1 { inWindow += 1 }
            e.int(Int64(inWindow))
            for k in entries.indices where entries[k].date >= window.0 && entries[k].date <= window.1 {
                e.int(Int64(entries[k].date.daysSinceEpoch))
                e.keyword(Names.of(entries[k].kind))
            }
        }
    }

    /// The rest: the employee, the contract, the shifts and the absences.
    static func encodeRest<E: Encoding>(_ input: borrowing PayrollInput, into encoding: inout E) {
        var e = encoding
        defer { encoding = e }
        // Fields read in place (`let c = input.contract` copied the contract: a retain and a release).
        e.string(input.employee.id)
        e.optionalDate(input.employee.birthDate)
        e.optionalDate(input.employee.hiredOn)
        e.optionalDate(input.employee.leftOn)
        e.int(Int64(input.employee.family))
        e.int(Int64(input.employee.children8to20))
        e.int(Int64(input.employee.withholdingRatio))
        // The enums' raw values as static bytes (`Names`; a `rawValue` String per field cost its
        // switch, a UTF-8 view and a release).
        e.keyword(Names.of(input.contract.wageType))
        e.int(input.contract.wageWon)
        for m in input.contract.scheduleMinutes { e.int(Int64(m)) }
        e.int(Int64(input.contract.weekStart.rawValue))
        e.int(Int64(input.contract.weeklyHoliday.rawValue))
        e.optional(input.contract.defaultBreakMinutes.map(Int64.init))
        e.keyword(Names.of(input.contract.weeklyAllowance))
        e.keyword(Names.of(input.contract.nightAllowance))
        e.keyword(Names.of(input.contract.overtimeAllowance))
        e.keyword(Names.of(input.contract.holidayAllowance))
        e.bool(input.contract.insurance.nationalPension)
        e.bool(input.contract.insurance.health)
        e.bool(input.contract.insurance.employment)
        e.optional(input.contract.insuranceBase.nationalPensionWon)
        e.optional(input.contract.insuranceBase.healthWon)
        e.optional(input.contract.insuranceBase.employmentWon)
        e.keyword(Names.of(input.contract.tax))
        e.int(input.contract.nonTaxable.mealsWon)
        e.int(input.contract.nonTaxable.carAllowanceWon)
        e.int(input.contract.nonTaxable.childcareWon)
        e.int(Int64(input.shifts.count))
        // Shifts read in place through the array's buffer (`for s in input.shifts` copied each
        // shift out, retaining and releasing its break array).
        input.shifts.withUnsafeBufferPointer { shifts in
            for k in shifts.indices {
                e.int(shifts[k].start.value)
                e.int(shifts[k].end.value)
                if let minutes = shifts[k].breakMinutes { e.raw(1); e.int(Int64(minutes)) } else { e.raw(0) }
                e.int(Int64(shifts[k].breaks.count))
                for b in shifts[k].breaks { e.int(b.start.value); e.int(b.end.value) }
            }
        }
        e.int(Int64(input.absences.count))
        for a in input.absences { e.int(Int64(a.date.daysSinceEpoch)); e.keyword(Names.of(a.kind)) }
    }

    /// The raw values of the enums the encoding writes, as static strings: the same bytes as
    /// `rawValue` (`InputDigestTests` checks every case), without building a `String`.
    enum Names {
        static func of(_ v: WageType) -> StaticString {
            switch v {
            case .hourly: "hourly"
            case .daily: "daily"
            case .monthly: "monthly"
            }
        }

        static func of(_ v: AllowanceSwitch) -> StaticString {
            switch v {
            case .statutory: "statutory"
            case .always: "always"
            case .never: "never"
            }
        }

        static func of(_ v: TaxMode) -> StaticString {
            switch v {
            case .simplified: "simplified"
            case .business33: "business33"
            case .daily: "daily"
            case .none: "none"
            }
        }

        static func of(_ v: HolidayKind) -> StaticString {
            switch v {
            case .publicHoliday: "public"
            case .substitute: "substitute"
            case .temporary: "temporary"
            case .election: "election"
            case .laborDay: "labor_day"
            case .company: "company"
            }
        }

        static func of(_ v: AbsenceKind) -> StaticString {
            switch v {
            case .unexcused: "unexcused"
            case .leave: "leave"
            case .sickUnpaid: "sick_unpaid"
            }
        }
    }

    /// The byte encoding's primitives: integers big-endian, booleans one byte, strings length-prefixed.
    protocol Encoding {
        mutating func raw(_ v: UInt8)
        mutating func int(_ v: Int64)
        mutating func bytes(_ s: String.UTF8View)
        /// ASCII bytes of a static string, written as they are.
        mutating func bytes(_ s: StaticString)
    }

    struct Counter: Encoding {
        var count = 0
        mutating func raw(_ v: UInt8) { count += 1 }
        mutating func int(_ v: Int64) { count += 8 }
        mutating func bytes(_ s: String.UTF8View) { count += s.count }
        mutating func bytes(_ s: StaticString) { count += s.utf8CodeUnitCount }
    }

    /// Writes at `base`, which holds at least `byteCountBound` bytes (so the offset, bounded by
    /// it, is advanced without an overflow check: five checks fewer per shift).
    struct Writer: Encoding {
        let base: UnsafeMutableRawPointer
        var offset = 0
        mutating func raw(_ v: UInt8) { base.storeBytes(of: v, toByteOffset: offset, as: UInt8.self); offset &+= 1 }
        mutating func int(_ v: Int64) { base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: Int64.self); offset &+= 8 }
        mutating func bytes(_ s: String.UTF8View) {
            // One copy of the contiguous UTF-8 (native and small strings); byte by byte otherwise.
            let copied: Int? = s.withContiguousStorageIfAvailable { utf8 in
                if let source = utf8.baseAddress { (base + offset).copyMemory(from: source, byteCount: utf8.count) }
                return utf8.count
            }
            if let copied {
                offset += copied
                return
            }
            for byte in s { base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self); offset += 1 }
        }
        mutating func bytes(_ s: StaticString) {
            (base + offset).copyMemory(from: s.utf8Start, byteCount: s.utf8CodeUnitCount)
            offset += s.utf8CodeUnitCount
        }
        /// Bytes of an encoding made before (`Scratch`'s calendar part).
        mutating func bytes(_ made: UnsafeRawBufferPointer) {
            if let source = made.baseAddress { (base + offset).copyMemory(from: source, byteCount: made.count) }
            offset += made.count
        }
    }
}

extension InputDigest.Encoding {
    mutating func bool(_ v: Bool) { raw(v ? 1 : 0) }
    mutating func string(_ s: String) { int(Int64(s.utf8.count)); bytes(s.utf8) }
    /// A raw value from `InputDigest.Names`, encoded as `string(rawValue)` encodes it.
    mutating func keyword(_ s: StaticString) { int(Int64(s.utf8CodeUnitCount)); bytes(s) }
    mutating func optional(_ v: Int64?) {
        if let v { raw(1); int(v) } else { raw(0) }
    }
    mutating func optionalDate(_ d: LocalDate?) { optional(d.map { Int64($0.daysSinceEpoch) }) }
}
