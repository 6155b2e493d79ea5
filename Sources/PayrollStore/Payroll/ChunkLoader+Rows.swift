import PayrollRules
import PostgresClient

/// Raw rows as COPYed out, before they become a `PayrollInput`.
extension ChunkLoader {
    struct EmployeeRow {
        var id: Int64
        var number: String?
        var birthDate: LocalDate?
        var hiredOn: LocalDate?
        var leftOn: LocalDate?
        var family: Int
        var children: Int
        var ratio: Int

        /// The columns read after the id, in `init(id:row:)`'s order. `family`,
        /// `children_8_to_20` and `withholding_ratio` (NOT NULL) come as NULL when they hold
        /// their column default (1, 0, 100): no send function call for them (see
        /// `ContractRow.columnsSQL`).
        static let columnsSQL = """
            employee_number, birth_date, hired_on, left_on,
            NULLIF(family, 1), NULLIF(children_8_to_20, 0), NULLIF(withholding_ratio, 100)
            """

    }

    /// A shift as read; POD (no reference inside), so a chunk's rows are freed at once. Its id is
    /// not read (one datum fewer per shift on the bulk path): an error about a shift names it by
    /// its index among the employee's shifts, and `ShiftNames` looks the id up afterwards, by
    /// `startsAt` (unique per employee: `shifts_by_employee_time`).
    struct ShiftRow {
        var startsAt: Int64
        var endsAt: Int64
        var breakMinutes: Int32?
        /// The explicit break windows (`shifts.breaks`) as a range of the chunk's
        /// `ChildRows.breakWindows` (nil windows: unreadable ones), or nil for NULL.
        var breaks: Range<Int32>?
    }

    /// A shift row of `loadChildRows`' COPY (employee_id, starts_at, ends_at, break_minutes, breaks)
    /// in its usual layout, decoded from the row's bytes with a few comparisons of its length words
    /// instead of a bounds and length check per field (≈ 200 instructions per row with the field
    /// readers). `fields(_:)` answers only for exactly this layout: three 8-byte fields, the break
    /// minutes 4 bytes or NULL, the breaks NULL or a value within the row. Any other row (a wrong
    /// width, a length past the row's end) is left to the field readers, which read it as before
    /// and raise the same errors; bytes after the fifth field are ignored by both.
    struct ShiftFields {
        var employeeId: Int64
        var startsAt: Int64
        var endsAt: Int64
        var breakMinutes: Int32?
        /// The `breaks` value's bytes, or nil for NULL.
        var breaks: UnsafeRawBufferPointer?

        @inline(__always)
        static func fields(_ bytes: UnsafeRawBufferPointer) -> ShiftFields? {
            // 3 × (4 + 8), then at least two 4-byte length words.
            guard let base = bytes.baseAddress, bytes.count >= 44 else { return nil }
            let eight = Int32(8).bigEndian
            guard base.loadUnaligned(fromByteOffset: 0, as: Int32.self) == eight,
                  base.loadUnaligned(fromByteOffset: 12, as: Int32.self) == eight,
                  base.loadUnaligned(fromByteOffset: 24, as: Int32.self) == eight else { return nil }
            var next = 40
            let breakMinutes: Int32?
            switch Int32(bigEndian: base.loadUnaligned(fromByteOffset: 36, as: Int32.self)) {
            case -1:
                breakMinutes = nil
            case 4:
                guard bytes.count >= 48 else { return nil }
                breakMinutes = Int32(bigEndian: base.loadUnaligned(fromByteOffset: 40, as: Int32.self))
                next = 44
            default:
                return nil
            }
            let breaksLength = Int(Int32(bigEndian: base.loadUnaligned(fromByteOffset: next, as: Int32.self)))
            next += 4
            let breaks: UnsafeRawBufferPointer?
            if breaksLength == -1 {
                breaks = nil
            } else {
                guard breaksLength >= 0, breaksLength <= bytes.count - next else { return nil }
                breaks = UnsafeRawBufferPointer(start: base + next, count: breaksLength)
            }
            return ShiftFields(employeeId: Int64(bigEndian: base.loadUnaligned(fromByteOffset: 4, as: Int64.self)),
                               startsAt: Int64(bigEndian: base.loadUnaligned(fromByteOffset: 16, as: Int64.self)),
                               endsAt: Int64(bigEndian: base.loadUnaligned(fromByteOffset: 28, as: Int64.self)),
                               breakMinutes: breakMinutes, breaks: breaks)
        }
    }

    struct AbsenceRow {
        var id: Int64
        var date: LocalDate
        var kind: StoredKeyword<AbsenceKind>
    }

    /// A contract as read. Its enum-like text columns are decoded from their bytes
    /// (`StoredKeyword`): a text that names no value is kept and reported by `makeContract` only
    /// if this is the contract in force, naming the field, as before.
    struct ContractRow {
        var id: Int64
        var effectiveFrom: LocalDate
        var effectiveToExclusive: LocalDate?
        var wageType: StoredKeyword<WageType>
        var wageWon: Int64
        /// `scheduled_mon_minutes` … `scheduled_sun_minutes`.
        var schedule: (Int32, Int32, Int32, Int32, Int32, Int32, Int32)
        var weekStart: StoredKeyword<Weekday>?
        var weeklyHoliday: StoredKeyword<Weekday>
        var defaultBreakMinutes: Int32?
        var weeklyAllowance: StoredKeyword<AllowanceSwitch>
        var nightAllowance: StoredKeyword<AllowanceSwitch>
        var overtimeAllowance: StoredKeyword<AllowanceSwitch>
        var holidayAllowance: StoredKeyword<AllowanceSwitch>
        var insurance: InsuranceFlags
        var insuranceBase: InsuranceBases
        var tax: StoredKeyword<TaxMode>
        var nonTaxable: NonTaxableItems

        /// The columns read, in `init(row:)`'s order, in a form that makes the server call fewer
        /// binary send functions (each allocates a buffer per datum; 30 of them made the contract
        /// COPY ≈ 3 µs of server CPU per row):
        /// - a NOT NULL column that has a default (weekly holiday `sun`, allowances `statutory`,
        ///   insured `true`, tax `simplified`, non-taxable items 0, Sunday's minutes 0) comes as
        ///   NULL when it holds that default: a NULL field is 4 bytes and no call. The comparison
        ///   is byte equality (`NULLIF` under `COLLATE "C"`), so `init(row:)` reads exactly the
        ///   stored value back, and any other text (one a broken import left behind) arrives as
        ///   stored, for the error naming its field;
        /// - the other six schedule minutes come in pairs, one `int8` each: the first day in the
        ///   high 32 bits, the second's 32 bits below (`(a << 32) | (b & 0xFFFFFFFF)`), exact for
        ///   every `integer`, also outside the 0…1440 the CHECK allows.
        ///
        /// The loader does not send these columns: migration 0020 stores their binary COPY bytes in
        /// the generated column `load_fields` (`loadFieldsSQL`), one `bytea` per contract, which
        /// `init(row:)` reads with the same readers (`BinaryCopyRow.withNestedFields`). This query
        /// is the definition those bytes must match (`ChunkLoaderColumnsTests` compares them).
        static let columnsSQL = """
            x.id, x.effective_from, x.effective_to_exclusive, x.wage_type, x.wage_won,
            (x.scheduled_mon_minutes::int8 << 32) | (x.scheduled_tue_minutes::int8 & 4294967295),
            (x.scheduled_wed_minutes::int8 << 32) | (x.scheduled_thu_minutes::int8 & 4294967295),
            (x.scheduled_fri_minutes::int8 << 32) | (x.scheduled_sat_minutes::int8 & 4294967295),
            NULLIF(x.scheduled_sun_minutes, 0),
            x.week_start, NULLIF(x.weekly_holiday COLLATE "C", 'sun'), x.default_break_minutes,
            NULLIF(x.weekly_allowance COLLATE "C", 'statutory'), NULLIF(x.night_allowance COLLATE "C", 'statutory'),
            NULLIF(x.overtime_allowance COLLATE "C", 'statutory'), NULLIF(x.holiday_allowance COLLATE "C", 'statutory'),
            NULLIF(x.insures_national_pension, true), NULLIF(x.insures_health, true), NULLIF(x.insures_employment, true),
            x.national_pension_base_won, x.health_base_won, x.employment_base_won, NULLIF(x.tax COLLATE "C", 'simplified'),
            NULLIF(x.non_taxable_meals_won, 0), NULLIF(x.non_taxable_car_allowance_won, 0), NULLIF(x.non_taxable_childcare_won, 0)
            """

        /// The contract's fields as one `bytea` of `fieldCount` binary COPY fields: `columnsSQL`
        /// computed when the row was written (migration 0020), read with `init(loadFields:)`.
        static let loadFieldsSQL = "x.load_fields"
        /// Fields of `columnsSQL` (and of `load_fields`).
        static let fieldCount = 26

        /// Two `integer`s packed by `columnsSQL` into one `int8`: (high 32 bits, low 32 bits).
        @inline(__always)
        static func unpacked(_ pair: Int64) -> (Int32, Int32) {
            (Int32(truncatingIfNeeded: pair >> 32), Int32(truncatingIfNeeded: pair))
        }

        func contains(_ date: LocalDate) -> Bool {
            effectiveFrom <= date && (effectiveToExclusive.map { date < $0 } ?? true)
        }
    }

    /// The `scheduleMinutes` arrays of the contracts made so far, by schedule: a chunk's contracts
    /// use a few hundred schedules at most, and those that share one share its array (an
    /// allocation, and a free, fewer per employee). A small table indexed by a hash of the
    /// schedule; a schedule whose slot holds another gets a new array (and takes the slot).
    struct ScheduleArrays {
        typealias Schedule = (Int32, Int32, Int32, Int32, Int32, Int32, Int32)
        private static let slotCount = 256
        private var slots: [[Int32]] = Array(repeating: [], count: ScheduleArrays.slotCount)

        @inline(__always)
        mutating func array(_ s: Schedule) -> [Int32] {
            var hash = UInt64(UInt32(bitPattern: s.0))
            hash = hash &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32(bitPattern: s.1))
            hash = hash &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32(bitPattern: s.2))
            hash = hash &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32(bitPattern: s.3))
            hash = hash &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32(bitPattern: s.4))
            hash = hash &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32(bitPattern: s.5))
            hash = hash &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32(bitPattern: s.6))
            hash = hash &* 0x9E37_79B9_7F4A_7C15
            let slot = Int(truncatingIfNeeded: hash >> 56) & (Self.slotCount - 1)
            let cached = slots[slot]
            if cached.count == 7, cached[0] == s.0, cached[1] == s.1, cached[2] == s.2, cached[3] == s.3,
               cached[4] == s.4, cached[5] == s.5, cached[6] == s.6 {
                return cached
            }
            let made = [s.0, s.1, s.2, s.3, s.4, s.5, s.6]
            slots[slot] = made
            return made
        }
    }

    /// One employee of a chunk: its input built from the rows, validated and digested, or the
    /// error naming the record and field (`inputDigest` is nil exactly then). The input is never
    /// copied on the way (validated as it is, hashed where it lies, moved into the result): each
    /// copy retained and released every array and text of it once more.
    static func loadEmployee(run: PayrollRun, workplace: WorkplaceData, employee e: EmployeeRow,
                             contracts: ArraySlice<ContractRow>, shifts shiftRows: ArraySlice<ShiftRow>,
                             breakWindows: [BreakRanges.Window?],
                             absences absenceRows: ArraySlice<AbsenceRow>,
                             schedules: inout ScheduleArrays, digestScratch: inout InputDigest.Scratch) -> LoadedEmployee {
        do throws(PayrollError) {
            let input = try validatedInput(run: run, workplace: workplace, employee: e, contracts: contracts, shifts: shiftRows,
                                           breakWindows: breakWindows, absences: absenceRows, schedules: &schedules)
            // Hashed where it lies, then moved into the result.
            let digest = InputDigest.digest(input, using: &digestScratch)
            return LoadedEmployee(employeeId: e.id, employeeNumber: e.number, input: .success(input), inputDigest: digest)
        } catch {
            return LoadedEmployee(employeeId: e.id, employeeNumber: e.number, input: .failure(error), inputDigest: nil)
        }
    }

    /// The validated input built from one employee's rows (`loadEmployee`), or the first problem
    /// naming its record and field.
    static func validatedInput(run: PayrollRun, workplace: WorkplaceData, employee e: EmployeeRow,
                               contracts: ArraySlice<ContractRow>, shifts shiftRows: ArraySlice<ShiftRow>,
                               breakWindows: [BreakRanges.Window?],
                               absences absenceRows: ArraySlice<AbsenceRow>,
                               schedules: inout ScheduleArrays) throws(PayrollError) -> PayrollInput {
        let referenceDate = min(run.periodEnd, e.leftOn ?? run.periodEnd)
        // By index: no copy of a contract row (and of its texts) per contract looked at.
        var inForce: Int?
        var inForceCount = 0
        for k in contracts.indices where contracts[k].contains(referenceDate) {
            if inForce == nil { inForce = k }
            inForceCount += 1
        }
        guard let inForceIndex = inForce else {
            throw PayrollError(.missingField, "no contract in force on \(referenceDate) (the period's last employed day)", field: "contract")
        }
        guard inForceCount == 1 else {
            let ids = contracts.filter { $0.contains(referenceDate) }.map { String($0.id) }
            throw PayrollError(.invalidValue, "\(inForceCount) contracts in force on \(referenceDate) (ids \(ids.joined(separator: ", "))); exactly one is required",
                               field: "contract")
        }
        // Through the slice's buffer: `contracts[k]` as an argument copied the row (its texts retained and released).
        // Read where it lies: `contracts[k]` as an argument copied the row (its texts retained and released).
        let contract = try contracts.withUnsafeBufferPointer { (rows) throws(PayrollError) in
            try makeContract(rows.baseAddress.unsafelyUnwrapped + (inForceIndex - contracts.startIndex),
                             workplaceWeekStart: workplace.weekStart, schedules: &schedules)
        }
        var shifts: [Shift] = []
        shifts.reserveCapacity(shiftRows.count)
        // Through the slice's buffer: no bounds check per row read.
        try shiftRows.withUnsafeBufferPointer { (rows) throws(PayrollError) in
            for k in rows.indices {
                shifts.append(try makeShift(rows[k], index: k, breakWindows: breakWindows,
                                            defaultBreakMinutes: contract.defaultBreakMinutes))
            }
        }
        var absences: [Absence] = []
        if !absenceRows.isEmpty { absences.reserveCapacity(absenceRows.count) }
        for a in absenceRows {
            switch a.kind {
            case .known(let kind): absences.append(Absence(date: a.date, kind: kind))
            case .unknown(let text):
                throw PayrollError(.invalidValue, "unknown absence kind '\(text)'", field: "absences[id=\(a.id)].kind")
            }
        }
        var input = PayrollInput(
            periodStart: run.periodStart, periodEnd: run.periodEnd, payDate: run.payDate,
            workplace: Workplace(fiveOrMore: run.fiveOrMore, holidays: workplace.calendar),
            employee: Employee(id: decimalText(e.id), birthDate: e.birthDate, hiredOn: e.hiredOn, leftOn: e.leftOn,
                               family: e.family, children8to20: e.children, withholdingRatio: e.ratio),
            contract: contract, shifts: shifts, absences: absences)
        do throws(PayrollError) {
            // Validated where it lies: an input already valid (every one the loader builds from
            // well-formed rows) is kept as it is, not copied (`validated()` returned a copy).
            try input.validateInPlace()
        } catch {
            throw renamed(error, absenceIds: absenceRows.map(\.id))
        }
        return input
    }

    /// `String(id)`, written digit by digit into a small string (15 bytes at most: no allocation)
    /// instead of through the generic `description` (≈ 225 instructions per employee).
    static func decimalText(_ id: Int64) -> String {
        guard id >= 0, id < 1_000_000_000_000_000 else { return String(id) }
        return String(unsafeUninitializedCapacity: 15) { buffer in
            var count = 1
            var rest = id.magnitude
            while rest >= 10 { rest /= 10; count += 1 }
            var m = id.magnitude, k = count
            repeat {
                k -= 1
                buffer[k] = UInt8(truncatingIfNeeded: m % 10) &+ UInt8(ascii: "0")
                m /= 10
            } while m != 0
            return count
        }
    }

    /// The contract of `row` (read in place), or the error naming its first unknown keyword
    /// (`firstUnknownKeyword`, called only when one is unknown: the common case reads every
    /// keyword directly, without a generic helper called per field, ~60 instructions each).
    static func makeContract(_ row: UnsafePointer<ContractRow>, workplaceWeekStart: Weekday,
                             schedules: inout ScheduleArrays) throws(PayrollError) -> Contract {
        let weekStart: Weekday?
        switch row.pointee.weekStart {
        case nil: weekStart = workplaceWeekStart
        case .known(let day)?: weekStart = day
        case .unknown?: weekStart = nil
        }
        guard let weekStart, case .known(let wageType) = row.pointee.wageType, case .known(let weeklyHoliday) = row.pointee.weeklyHoliday,
              case .known(let weeklyAllowance) = row.pointee.weeklyAllowance, case .known(let nightAllowance) = row.pointee.nightAllowance,
              case .known(let overtimeAllowance) = row.pointee.overtimeAllowance,
              case .known(let holidayAllowance) = row.pointee.holidayAllowance, case .known(let tax) = row.pointee.tax else {
            throw firstUnknownKeyword(row)
        }
        return Contract(
            wageType: wageType, wageWon: row.pointee.wageWon, scheduleMinutes: schedules.array(row.pointee.schedule),
            weekStart: weekStart, weeklyHoliday: weeklyHoliday, defaultBreakMinutes: row.pointee.defaultBreakMinutes,
            weeklyAllowance: weeklyAllowance, nightAllowance: nightAllowance, overtimeAllowance: overtimeAllowance,
            holidayAllowance: holidayAllowance, insurance: row.pointee.insurance, insuranceBase: row.pointee.insuranceBase,
            tax: tax, nonTaxable: row.pointee.nonTaxable)
    }

    /// The error naming the first unknown keyword of `row`, in the order the contract's fields
    /// are read (wage type, week start, weekly holiday, the four allowances, tax).
    @inline(never)
    static func firstUnknownKeyword(_ row: UnsafePointer<ContractRow>) -> PayrollError {
        func unknown<T>(_ keyword: StoredKeyword<T>?) -> String? {
            if case .unknown(let text)? = keyword { return text }
            return nil
        }
        let r = row.pointee
        if let text = unknown(r.wageType) { return PayrollError(.invalidValue, "unknown value '\(text)'", field: "contract.wageType") }
        if let text = unknown(r.weekStart) { return PayrollError(.invalidValue, "unknown weekday '\(text)'", field: "contract.weekStart") }
        if let text = unknown(r.weeklyHoliday) {
            return PayrollError(.invalidValue, "unknown weekday '\(text)'", field: "contract.weeklyHoliday")
        }
        for (keyword, field) in [(unknown(r.weeklyAllowance), "weeklyAllowance"), (unknown(r.nightAllowance), "nightAllowance"),
                                 (unknown(r.overtimeAllowance), "overtimeAllowance"), (unknown(r.holidayAllowance), "holidayAllowance"),
                                 (unknown(r.tax), "tax")] {
            if let text = keyword { return PayrollError(.invalidValue, "unknown value '\(text)'", field: "contract.\(field)") }
        }
        // Unreachable from makeContract (it calls this only when a keyword is unknown).
        return PayrollError(.invalidValue, "unknown value", field: "contract")
    }

    /// The shift as `PayrollInput.validated()` will normalise it where that cannot fail: a shift
    /// with neither explicit breaks nor break minutes gets the contract's `defaultBreakMinutes`
    /// when it is positive and shorter than the shift (what validation would copy in); one with
    /// explicit windows and no break minutes gets their sum when it is positive and shorter than
    /// the shift (what validation would set; a sum that disagrees with the windows cannot arise,
    /// and every check of the windows comes before the one of the break minutes). Validation
    /// then finds every shift already normal and keeps the array as it is, instead of copying it
    /// and taking its slow path per shift. A default that would not fit (or a shift that does not
    /// end after its start) is left out, so validation reports it exactly as before; every other
    /// check it makes on such a shift (length, window) comes before the break checks in both of
    /// its paths, so the same error names the same field.
    /// Errors name the shift by `index` (its position among the employee's shifts, the order
    /// validation sees them in): `shifts[3].end`.
    @inline(__always)
    static func makeShift(_ s: ShiftRow, index: Int, breakWindows: [BreakRanges.Window?],
                          defaultBreakMinutes: Int32? = nil) throws(PayrollError) -> Shift {
        guard let start = DateConversion.koreaMinute(microsecondsSince2000: s.startsAt) else {
            throw PayrollError(.invalidValue, "shift start is not a whole minute", field: "shifts[\(index)].start")
        }
        guard let end = DateConversion.koreaMinute(microsecondsSince2000: s.endsAt) else {
            throw PayrollError(.invalidValue, "shift end is not a whole minute", field: "shifts[\(index)].end")
        }
        var breaks: [BreakWindow] = []
        if let range = s.breaks {
            breaks.reserveCapacity(range.count)
            for (k, window) in breakWindows[Int(range.lowerBound)..<Int(range.upperBound)].enumerated() {
                guard let window else {
                    throw PayrollError(.invalidValue, "unreadable break window (unbounded or out of range)",
                                       field: "shifts[\(index)].breaks[\(k)]")
                }
                breaks.append(BreakWindow(start: KoreaMinute(utcMinutes: window.startMinutes), end: KoreaMinute(utcMinutes: window.endMinutes)))
            }
        }
        var breakMinutes = s.breakMinutes
        let lengthMinutes = end.value - start.value
        if breakMinutes == nil, !breaks.isEmpty {
            // Explicit windows: validation sets the break minutes to their sum. Given here only
            // when the sum is positive and below the shift's length, where it changes no check.
            var totalMinutes: Int64 = 0
            for b in breaks {
                let (sum, overflow) = totalMinutes.addingReportingOverflow(b.end.value &- b.start.value)
                guard !overflow else { totalMinutes = -1; break }
                totalMinutes = sum
            }
            if totalMinutes > 0, totalMinutes < lengthMinutes, totalMinutes <= Int64(Int32.max) { breakMinutes = Int32(totalMinutes) }
        } else if breakMinutes == nil, let d = defaultBreakMinutes, d > 0, Int64(d) < lengthMinutes {
            breakMinutes = d
        }
        return Shift(start: start, end: end, breakMinutes: breakMinutes, breaks: breaks)
    }

    /// Rewrites `absences[1]…` (an index in the order given to validation) to the stored id:
    /// `absences[id=7]…`. (Shifts are renamed after the load: `ShiftNames`.)
    static func renamed(_ error: PayrollError, absenceIds: [Int64]) -> PayrollError {
        guard let (prefix, index, rest) = indexedField(error.field), prefix == "absences[", absenceIds.indices.contains(index) else {
            return error
        }
        var renamed = error
        renamed.field = "\(prefix)id=\(absenceIds[index])" + rest
        return renamed
    }

    /// `shifts[3].end` → ("shifts[", 3, "].end"); nil for a field that does not start with
    /// `shifts[` or `absences[` and an index.
    static func indexedField(_ field: String?) -> (prefix: String, index: Int, rest: Substring)? {
        guard let field else { return nil }
        for prefix in ["shifts[", "absences["] where field.hasPrefix(prefix) {
            let rest = field.dropFirst(prefix.count)
            guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]) else { return nil }
            return (prefix, index, rest[close...])
        }
        return nil
    }
}

extension ChunkLoader.ContractRow {
    /// Reads the fields of `columnsSQL` (NULL in a column that is NOT NULL in the table = its default).
    /// Built from locals with the memberwise initializer: assigned field by field in a throwing
    /// initializer, the row was built in a temporary and copied out (its texts retained and released).
    init(row: inout BinaryCopyRow, keywords: borrowing StoredKeywords.Contract = StoredKeywords.Contract()) throws {
        let id = try row.int64()
        let effectiveFrom = DateConversion.localDate(daysSince2000: try row.date())
        let effectiveToExclusive = try row.optionalDate().map(DateConversion.localDate(daysSince2000:))
        let wageType = try row.keyword(keywords.wageType)
        let wageWon = try row.int64()
        let (mon, tue) = Self.unpacked(try row.int64())
        let (wed, thu) = Self.unpacked(try row.int64())
        let (fri, sat) = Self.unpacked(try row.int64())
        let schedule = (mon, tue, wed, thu, fri, sat, try row.optionalInt32() ?? 0)
        let weekStart = try row.optionalKeyword(keywords.weekday)
        let weeklyHoliday = try row.optionalKeyword(keywords.weekday) ?? .known(.sun)
        let defaultBreakMinutes = try row.optionalInt32()
        let weeklyAllowance = try row.optionalKeyword(keywords.allowance) ?? .known(.statutory)
        let nightAllowance = try row.optionalKeyword(keywords.allowance) ?? .known(.statutory)
        let overtimeAllowance = try row.optionalKeyword(keywords.allowance) ?? .known(.statutory)
        let holidayAllowance = try row.optionalKeyword(keywords.allowance) ?? .known(.statutory)
        let insurance = InsuranceFlags(nationalPension: try row.optionalBool() ?? true, health: try row.optionalBool() ?? true,
                                       employment: try row.optionalBool() ?? true)
        let insuranceBase = InsuranceBases(nationalPensionWon: try row.optionalInt64(), healthWon: try row.optionalInt64(),
                                           employmentWon: try row.optionalInt64())
        let tax = try row.optionalKeyword(keywords.tax) ?? .known(.simplified)
        let nonTaxable = NonTaxableItems(mealsWon: try row.optionalInt64() ?? 0, carAllowanceWon: try row.optionalInt64() ?? 0,
                                         childcareWon: try row.optionalInt64() ?? 0)
        self.init(id: id, effectiveFrom: effectiveFrom, effectiveToExclusive: effectiveToExclusive, wageType: wageType,
                  wageWon: wageWon, schedule: schedule, weekStart: weekStart, weeklyHoliday: weeklyHoliday,
                  defaultBreakMinutes: defaultBreakMinutes, weeklyAllowance: weeklyAllowance, nightAllowance: nightAllowance,
                  overtimeAllowance: overtimeAllowance, holidayAllowance: holidayAllowance, insurance: insurance,
                  insuranceBase: insuranceBase, tax: tax, nonTaxable: nonTaxable)
    }

    /// Reads the next field, `load_fields` (`loadFieldsSQL`): the `fieldCount` fields of
    /// `columnsSQL` inside one `bytea`, read as `init(row:keywords:)` reads them from the row; a
    /// NULL or a layout with other fields is a `.copyFormat` error.
    @inline(__always)
    init(loadFields row: inout BinaryCopyRow, keywords: borrowing StoredKeywords.Contract = StoredKeywords.Contract()) throws {
        self = try row.withNestedFields(count: Self.fieldCount) { fields in try Self(row: &fields, keywords: keywords) }
    }
}

extension ChunkLoader.EmployeeRow {
    /// Reads the fields of `columnsSQL` for the employee `id` (into locals, then the memberwise
    /// initializer: see `ContractRow.init(row:keywords:)`).
    init(id: Int64, row: inout BinaryCopyRow) throws {
        let number = try row.optionalText()
        let birthDate = try row.optionalDate().map(DateConversion.localDate(daysSince2000:))
        let hiredOn = try row.optionalDate().map(DateConversion.localDate(daysSince2000:))
        let leftOn = try row.optionalDate().map(DateConversion.localDate(daysSince2000:))
        let family = Int(try row.optionalInt16() ?? 1)
        let children = Int(try row.optionalInt16() ?? 0)
        let ratio = Int(try row.optionalInt16() ?? 100)
        self.init(id: id, number: number, birthDate: birthDate, hiredOn: hiredOn, leftOn: leftOn, family: family,
                  children: children, ratio: ratio)
    }
}
