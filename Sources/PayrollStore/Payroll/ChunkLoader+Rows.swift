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
    }

    struct ShiftRow {
        var id: Int64
        var startsAt: Int64
        var endsAt: Int64
        var breakMinutes: Int32?
        /// The explicit break windows (`shifts.breaks`), or nil.
        var breaks: BreakRanges?
    }

    struct AbsenceRow {
        var id: Int64
        var date: LocalDate
        var kind: String
    }

    struct ContractRow {
        var id: Int64
        var effectiveFrom: LocalDate
        var effectiveToExclusive: LocalDate?
        var wageType: String
        var wageWon: Int64
        var schedule: [Int32]
        var weekStart: String?
        var weeklyHoliday: String
        var defaultBreakMinutes: Int32?
        var allowances: [String]
        var insures: [Bool]
        var bases: [Int64?]
        var tax: String
        var nonTaxable: [Int64]

        init(row: inout BinaryCopyRow) throws {
            id = try row.int64()
            effectiveFrom = DateConversion.localDate(daysSince2000: try row.date())
            effectiveToExclusive = try row.optionalDate().map(DateConversion.localDate(daysSince2000:))
            wageType = try row.text()
            wageWon = try row.int64()
            schedule = []
            for _ in 0..<7 { schedule.append(try row.int32()) }
            weekStart = try row.optionalText()
            weeklyHoliday = try row.text()
            defaultBreakMinutes = try row.optionalInt32()
            allowances = []
            for _ in 0..<4 { allowances.append(try row.text()) }
            insures = []
            for _ in 0..<3 { insures.append(try row.bool()) }
            bases = []
            for _ in 0..<3 { bases.append(try row.optionalInt64()) }
            tax = try row.text()
            nonTaxable = []
            for _ in 0..<3 { nonTaxable.append(try row.int64()) }
        }

        func contains(_ date: LocalDate) -> Bool {
            effectiveFrom <= date && (effectiveToExclusive.map { date < $0 } ?? true)
        }
    }

    static func buildInput(run: PayrollRun, workplace: WorkplaceData, employee e: EmployeeRow,
                           contracts: [ContractRow], shifts shiftRows: [ShiftRow],
                           absences absenceRows: [AbsenceRow]) -> Result<PayrollInput, PayrollError> {
        do throws(PayrollError) {
            let referenceDate = min(run.periodEnd, e.leftOn ?? run.periodEnd)
            let inForce = contracts.filter { $0.contains(referenceDate) }
            guard let row = inForce.first else {
                throw PayrollError(.missingField, "no contract in force on \(referenceDate) (the period's last employed day)", field: "contract")
            }
            guard inForce.count == 1 else {
                throw PayrollError(.invalidValue, "\(inForce.count) contracts in force on \(referenceDate) (ids \(inForce.map { String($0.id) }.joined(separator: ", "))); exactly one is required",
                                   field: "contract")
            }
            let contract = try makeContract(row, workplaceWeekStart: workplace.weekStart)
            var shifts: [Shift] = []
            shifts.reserveCapacity(shiftRows.count)
            for s in shiftRows { shifts.append(try makeShift(s)) }
            var absences: [Absence] = []
            for a in absenceRows {
                guard let kind = AbsenceKind(rawValue: a.kind) else {
                    throw PayrollError(.invalidValue, "unknown absence kind '\(a.kind)'", field: "absences[id=\(a.id)].kind")
                }
                absences.append(Absence(date: a.date, kind: kind))
            }
            let input = PayrollInput(
                periodStart: run.periodStart, periodEnd: run.periodEnd, payDate: run.payDate,
                workplace: Workplace(fiveOrMore: run.fiveOrMore, holidays: workplace.calendar),
                employee: Employee(id: String(e.id), birthDate: e.birthDate, hiredOn: e.hiredOn, leftOn: e.leftOn,
                                   family: e.family, children8to20: e.children, withholdingRatio: e.ratio),
                contract: contract, shifts: shifts, absences: absences)
            do throws(PayrollError) {
                return .success(try input.validated())
            } catch {
                throw renamed(error, shiftIds: shiftRows.map(\.id), absenceIds: absenceRows.map(\.id))
            }
        } catch {
            return .failure(error)
        }
    }

    static func makeContract(_ r: ContractRow, workplaceWeekStart: Weekday) throws(PayrollError) -> Contract {
        func parse<T: RawRepresentable>(_ type: T.Type, _ text: String, _ field: String) throws(PayrollError) -> T where T.RawValue == String {
            guard let value = T(rawValue: text) else {
                throw PayrollError(.invalidValue, "unknown value '\(text)'", field: "contract.\(field)")
            }
            return value
        }
        func weekday(_ text: String, _ field: String) throws(PayrollError) -> Weekday {
            guard let day = Weekday(key: text) else { throw PayrollError(.invalidValue, "unknown weekday '\(text)'", field: "contract.\(field)") }
            return day
        }
        return Contract(
            wageType: try parse(WageType.self, r.wageType, "wageType"), wageWon: r.wageWon, scheduleMinutes: r.schedule,
            weekStart: try r.weekStart.map { (text) throws(PayrollError) in try weekday(text, "weekStart") } ?? workplaceWeekStart,
            weeklyHoliday: try weekday(r.weeklyHoliday, "weeklyHoliday"),
            defaultBreakMinutes: r.defaultBreakMinutes,
            weeklyAllowance: try parse(AllowanceSwitch.self, r.allowances[0], "weeklyAllowance"),
            nightAllowance: try parse(AllowanceSwitch.self, r.allowances[1], "nightAllowance"),
            overtimeAllowance: try parse(AllowanceSwitch.self, r.allowances[2], "overtimeAllowance"),
            holidayAllowance: try parse(AllowanceSwitch.self, r.allowances[3], "holidayAllowance"),
            insurance: InsuranceFlags(nationalPension: r.insures[0], health: r.insures[1], employment: r.insures[2]),
            insuranceBase: InsuranceBases(nationalPensionWon: r.bases[0], healthWon: r.bases[1], employmentWon: r.bases[2]),
            tax: try parse(TaxMode.self, r.tax, "tax"),
            nonTaxable: NonTaxableItems(mealsWon: r.nonTaxable[0], carAllowanceWon: r.nonTaxable[1], childcareWon: r.nonTaxable[2]))
    }

    static func makeShift(_ s: ShiftRow) throws(PayrollError) -> Shift {
        guard let start = DateConversion.koreaMinute(microsecondsSince2000: s.startsAt) else {
            throw PayrollError(.invalidValue, "shift start is not a whole minute", field: "shifts[id=\(s.id)].start")
        }
        guard let end = DateConversion.koreaMinute(microsecondsSince2000: s.endsAt) else {
            throw PayrollError(.invalidValue, "shift end is not a whole minute", field: "shifts[id=\(s.id)].end")
        }
        var breaks: [BreakWindow] = []
        if let ranges = s.breaks {
            for (k, window) in ranges.windows.enumerated() {
                guard let window else {
                    throw PayrollError(.invalidValue, "unreadable break window (unbounded or out of range)",
                                       field: "shifts[id=\(s.id)].breaks[\(k)]")
                }
                breaks.append(BreakWindow(start: KoreaMinute(utcMinutes: window.startMinutes), end: KoreaMinute(utcMinutes: window.endMinutes)))
            }
        }
        return Shift(start: start, end: end, breakMinutes: s.breakMinutes, breaks: breaks)
    }

    /// Rewrites `shifts[3]…` / `absences[1]…` (indices in the order given to validation) to the
    /// stored ids: `shifts[id=123]…`.
    static func renamed(_ error: PayrollError, shiftIds: [Int64], absenceIds: [Int64]) -> PayrollError {
        guard let field = error.field else { return error }
        for (prefix, ids) in [("shifts[", shiftIds), ("absences[", absenceIds)] where field.hasPrefix(prefix) {
            let rest = field.dropFirst(prefix.count)
            guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]), ids.indices.contains(index) else { continue }
            var renamed = error
            renamed.field = "\(prefix)id=\(ids[index])" + rest[close...]
            return renamed
        }
        return error
    }
}
