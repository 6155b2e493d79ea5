import PayrollRules

/// SHA-256 over a canonical byte encoding of one `PayrollInput`: every field that can change a
/// payslip, in a fixed order, integers big-endian, strings length-prefixed. Two inputs with the
/// same digest produce the same payslip under the same rules; a clean run and a rerun after a
/// crash can be compared by digest.
public enum InputDigest {
    public static func digest(_ input: borrowing PayrollInput) -> [UInt8] {
        // One pass: the encoding is written into a temporary buffer of a size that bounds it, then
        // hashed from there (no counting pass, no array of the encoding). `Counter` still gives the
        // exact size, for tests. The buffer is allocated here, not by `withUnsafeTemporaryAllocation`:
        // its closure captured the input, which was copied twice per employee (every array and text
        // retained and released), and a bound above 1 KiB — most inputs' — was heap-allocated there too.
        let capacity = byteCountBound(input)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        var writer = Writer(base: buffer)
        encode(input, into: &writer)
        precondition(writer.offset <= capacity, "InputDigest's bound holds its encoding")
        return SHA256.digest(UnsafeRawBufferPointer(start: buffer, count: writer.offset))
    }

    /// At least the byte count of `encode(input)`: its fixed part (33 bytes of period and
    /// workplace, 59 of employee besides its id, 87 of contract besides its texts and schedule,
    /// 16 of counts), the texts' length prefixes and longest values, and per holiday, shift, break
    /// and absence the most each can take.
    static func byteCountBound(_ input: borrowing PayrollInput) -> Int {
        var breaks = 0
        for s in input.shifts { breaks &+= s.breaks.count }
        let holidays = (input.workplace.holidays ?? HolidayCalendar.korea).entries.count
        return 33 + 59 + 87 + 16 + TextBytes.contract + input.employee.id.utf8.count + 8 * input.contract.scheduleMinutes.count
            + holidays * (16 + TextBytes.holidayKind) + input.shifts.count * 33 + breaks * 16
            + input.absences.count * (16 + TextBytes.absenceKind)
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

    static func encode<E: Encoding>(_ input: borrowing PayrollInput, into e: inout E) {
        e.int(Int64(input.periodStart.daysSinceEpoch))
        e.int(Int64(input.periodEnd.daysSinceEpoch))
        e.int(Int64(input.payDate.daysSinceEpoch))
        e.bool(input.workplace.fiveOrMore)
        let window = (input.periodStart.adding(days: -CalcLimits.daysAroundPeriodMax),
                      input.periodEnd.adding(days: CalcLimits.daysAroundPeriodMax))
        let entries = (input.workplace.holidays ?? HolidayCalendar.korea).entries
        var inWindow = 0
        for h in entries where h.date >= window.0 && h.date <= window.1 { inWindow += 1 }
        e.int(Int64(inWindow))
        for h in entries where h.date >= window.0 && h.date <= window.1 { e.int(Int64(h.date.daysSinceEpoch)); e.string(h.kind.rawValue) }
        let employee = input.employee
        e.string(employee.id)
        e.optionalDate(employee.birthDate)
        e.optionalDate(employee.hiredOn)
        e.optionalDate(employee.leftOn)
        e.int(Int64(employee.family))
        e.int(Int64(employee.children8to20))
        e.int(Int64(employee.withholdingRatio))
        let c = input.contract
        e.string(c.wageType.rawValue)
        e.int(c.wageWon)
        for m in c.scheduleMinutes { e.int(Int64(m)) }
        e.int(Int64(c.weekStart.rawValue))
        e.int(Int64(c.weeklyHoliday.rawValue))
        e.optional(c.defaultBreakMinutes.map(Int64.init))
        e.string(c.weeklyAllowance.rawValue)  // one by one: an array literal here allocated per call
        e.string(c.nightAllowance.rawValue)
        e.string(c.overtimeAllowance.rawValue)
        e.string(c.holidayAllowance.rawValue)
        e.bool(c.insurance.nationalPension)
        e.bool(c.insurance.health)
        e.bool(c.insurance.employment)
        e.optional(c.insuranceBase.nationalPensionWon)
        e.optional(c.insuranceBase.healthWon)
        e.optional(c.insuranceBase.employmentWon)
        e.string(c.tax.rawValue)
        e.int(c.nonTaxable.mealsWon)
        e.int(c.nonTaxable.carAllowanceWon)
        e.int(c.nonTaxable.childcareWon)
        e.int(Int64(input.shifts.count))
        for s in input.shifts {
            e.int(s.start.value)
            e.int(s.end.value)
            e.optional(s.breakMinutes.map(Int64.init))
            e.int(Int64(s.breaks.count))
            for b in s.breaks { e.int(b.start.value); e.int(b.end.value) }
        }
        e.int(Int64(input.absences.count))
        for a in input.absences { e.int(Int64(a.date.daysSinceEpoch)); e.string(a.kind.rawValue) }
    }

    /// The byte encoding's primitives: integers big-endian, booleans one byte, strings length-prefixed.
    protocol Encoding {
        mutating func raw(_ v: UInt8)
        mutating func int(_ v: Int64)
        mutating func bytes(_ s: String.UTF8View)
    }

    struct Counter: Encoding {
        var count = 0
        mutating func raw(_ v: UInt8) { count += 1 }
        mutating func int(_ v: Int64) { count += 8 }
        mutating func bytes(_ s: String.UTF8View) { count += s.count }
    }

    struct Writer: Encoding {
        let base: UnsafeMutableRawPointer
        var offset = 0
        mutating func raw(_ v: UInt8) { base.storeBytes(of: v, toByteOffset: offset, as: UInt8.self); offset += 1 }
        mutating func int(_ v: Int64) { base.storeBytes(of: v.bigEndian, toByteOffset: offset, as: Int64.self); offset += 8 }
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
    }
}

extension InputDigest.Encoding {
    mutating func bool(_ v: Bool) { raw(v ? 1 : 0) }
    mutating func string(_ s: String) { int(Int64(s.utf8.count)); bytes(s.utf8) }
    mutating func optional(_ v: Int64?) {
        if let v { raw(1); int(v) } else { raw(0) }
    }
    mutating func optionalDate(_ d: LocalDate?) { optional(d.map { Int64($0.daysSinceEpoch) }) }
}
