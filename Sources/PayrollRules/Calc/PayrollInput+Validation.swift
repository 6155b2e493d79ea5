/// The semantic checks every `PayrollInput` passes before it is computed, shared by `payrun calc`
/// (after JSON decoding) and the batch path. Errors name the field as the calc request would
/// (`shifts[3].end`, `employee.children8to20`), with shift indices in the order given.
extension PayrollInput {
    /// Returns the input with its shifts sorted by start and every shift's break normalised
    /// (`contract.defaultBreakMinutes` copied into shifts that give no break), or throws the first
    /// problem found.
    public func validated() throws(PayrollError) -> PayrollInput {
        guard let changed = try validationChanges() else { return self }
        // Built from the fields, not as a copy of `self` with two arrays replaced (which retained
        // the old shift and absence arrays only to release them again).
        return PayrollInput(periodStart: periodStart, periodEnd: periodEnd, payDate: payDate, workplace: workplace,
                            employee: employee, contract: contract, shifts: changed.shifts, absences: changed.absences)
    }

    /// Every check of `validated()`, in its order; nil when the input is already what
    /// `validated()` would return (shifts normal, sorted and apart; absences sorted and unique),
    /// as every input the batch loader built is. `PayrollCalculator` then computes the input as
    /// it is, without building a second one (a retain and a release of each of its arrays).
    func validationChanges() throws(PayrollError) -> (shifts: [Shift], absences: [Absence])? {
        try validatePeriod()
        try validateEmployee()
        try validateContract()
        let shifts = try shiftsAreNormal() ? nil : validatedShifts()
        let absences = try validatedAbsences()
        if shifts == nil && absences == nil { return nil }
        return (shifts ?? self.shifts, absences ?? self.absences)
    }

    private func validatePeriod() throws(PayrollError) {
        guard periodEnd >= periodStart else {
            throw PayrollError(.invalidValue, "periodEnd \(periodEnd) is before periodStart \(periodStart)", field: "periodEnd")
        }
        let days = periodStart.days(to: periodEnd) + 1
        guard days <= CalcLimits.periodDaysMax else {
            throw PayrollError(.invalidValue, "the period has \(days) days; at most \(CalcLimits.periodDaysMax) are allowed",
                               field: "periodEnd")
        }
        // The premium month (`periodEnd`'s) is covered exactly when `periodEnd` lies in the covered
        // months' days: compared as day numbers, without taking the date apart (this runs twice
        // per employee on the batch path); the month itself is built only for the message.
        guard periodEnd >= RuleCoverage.premiumMonthFirst, periodEnd <= RuleCoverage.premiumMonthsLastDay else {
            throw PayrollError(.unsupported, "premium month \(periodEnd.firstOfMonth.description.prefix(7)) is outside the months the rule tables cover (\(RuleCoverage.premiumMonthsText))",
                               field: "periodEnd")
        }
        guard payDate >= RuleCoverage.payDateFirst else {
            throw PayrollError(.unsupported, "payment date \(payDate) is before \(RuleCoverage.payDateFirst), the first date the withholding tables cover",
                               field: "payDate")
        }
    }

    private func validateEmployee() throws(PayrollError) {
        guard !employee.id.isEmpty else { throw PayrollError(.invalidValue, "employee id is empty", field: "employee.id") }
        guard employee.id.utf8.count <= CalcLimits.employeeIdBytesMax else {
            throw PayrollError(.invalidValue, "employee id is longer than \(CalcLimits.employeeIdBytesMax) bytes", field: "employee.id")
        }
        if let hired = employee.hiredOn, let left = employee.leftOn, left < hired {
            throw PayrollError(.invalidValue, "leftOn \(left) is before hiredOn \(hired)", field: "employee.leftOn")
        }
        guard (1...CalcLimits.familyMax).contains(employee.family) else {
            throw PayrollError(.invalidValue, "family must be 1…\(CalcLimits.familyMax) (it counts the employee), got \(employee.family)",
                               field: "employee.family")
        }
        guard employee.children8to20 >= 0 else {
            throw PayrollError(.invalidValue, "children8to20 must not be negative, got \(employee.children8to20)",
                               field: "employee.children8to20")
        }
        // family counts the employee and the children, so at most family − 1 of them are children.
        guard employee.children8to20 <= employee.family - 1 else {
            throw PayrollError(.invalidValue, "children8to20 (\(employee.children8to20)) must be at most family − 1 (\(employee.family - 1)): family counts the employee and the children",
                               field: "employee.children8to20")
        }
        guard [80, 100, 120].contains(employee.withholdingRatio) else {
            throw PayrollError(.invalidValue, "withholdingRatio must be 80, 100 or 120, got \(employee.withholdingRatio)",
                               field: "employee.withholdingRatio")
        }
    }

    private func validateContract() throws(PayrollError) {
        guard contract.wageWon > 0, contract.wageWon <= CalcLimits.amountWonMax else {
            throw PayrollError(.invalidValue, "wage must be 1…\(CalcLimits.amountWonMax)원, got \(contract.wageWon)", field: "contract.wage")
        }
        // Weekday raw values 0…6 (no `allCases` array per employee on the batch path); the week's
        // sum (`weeklyScheduledMinutes`) taken in the same pass.
        var weeklyScheduledMinutes: Int64 = 0
        for raw in 0..<7 {
            let minutes = contract.scheduleMinutes[raw]
            guard minutes >= 0 && minutes <= 1440 else {
                throw PayrollError(.invalidValue, "scheduled minutes must be 0…1440, got \(minutes)",
                                   field: "contract.schedule.\(Weekday(rawValue: raw)?.key ?? String(raw))")
            }
            weeklyScheduledMinutes += Int64(minutes)
        }
        if contract.wageType != .hourly, weeklyScheduledMinutes == 0 {
            throw PayrollError(.invalidValue, "a \(contract.wageType.rawValue) wage needs a schedule with scheduled minutes (the hourly rate is derived from it)",
                               field: "contract.schedule")
        }
        if let b = contract.defaultBreakMinutes, !(0...1440).contains(b) {
            throw PayrollError(.invalidValue, "defaultBreakMinutes must be 0…1440, got \(b)", field: "contract.defaultBreakMinutes")
        }
        if contract.tax == .daily, contract.wageType == .monthly {
            throw PayrollError(.invalidValue, "daily (일용) withholding cannot apply to a monthly wage", field: "contract.tax")
        }
        // In field order; the field path is a literal, so nothing is allocated unless one fails.
        @inline(__always) func check(_ amount: Int64?, _ field: StaticString) throws(PayrollError) {
            guard let amount, !(0...CalcLimits.amountWonMax).contains(amount) else { return }
            throw PayrollError(.invalidValue, "amount must be 0…\(CalcLimits.amountWonMax)원, got \(amount)", field: "\(field)")
        }
        try check(contract.insuranceBase.nationalPensionWon, "contract.insuranceBase.nationalPension")
        try check(contract.insuranceBase.healthWon, "contract.insuranceBase.health")
        try check(contract.insuranceBase.employmentWon, "contract.insuranceBase.employment")
        try check(contract.nonTaxable.mealsWon, "contract.nonTaxable.meals")
        try check(contract.nonTaxable.carAllowanceWon, "contract.nonTaxable.carAllowance")
        try check(contract.nonTaxable.childcareWon, "contract.nonTaxable.childcare")
    }

    /// The dates shifts may start on and absences may fall on: the period and the weeks around it.
    private var allowedDates: ClosedRange<LocalDate> {
        periodStart.adding(days: -CalcLimits.daysAroundPeriodMax)...periodEnd.adding(days: CalcLimits.daysAroundPeriodMax)
    }

    /// True when `validatedShifts()` would return the shifts unchanged and without error: at most
    /// `shiftsMax` shifts, each ending after its start, at most `shiftMinutesMax` long, starting
    /// inside `allowedDates` and no earlier than the one before ended; without explicit breaks,
    /// its break minutes given (or no positive default to copy in) and shorter than the shift;
    /// with explicit breaks (at most `breaksPerShiftMax`), each ending after its start, inside the
    /// shift, in start order without overlap, their sum shorter than the shift and equal to the
    /// given break minutes. Shifts are read in place (copying one out retained and released its
    /// break array) and the window is compared in minutes (no date per shift). Any other array
    /// takes `validatedShifts()`, which reports the same first error as ever.
    private func shiftsAreNormal() -> Bool {
        guard shifts.count <= CalcLimits.shiftsMax else { return false }
        let window = allowedDates
        let firstMinute = Int64(window.lowerBound.daysSinceEpoch) * 1440
        let endMinute = (Int64(window.upperBound.daysSinceEpoch) + 1) * 1440
        let fillsDefault = (contract.defaultBreakMinutes ?? 0) > 0
        // Read through the buffer: no bounds check per field read (the loop stays in bounds).
        return shifts.withUnsafeBufferPointer { shifts in
            var previousEnd = Int64.min
            for i in shifts.indices {
                let start = shifts[i].start.value, end = shifts[i].end.value
                guard end > start, end - start <= CalcLimits.shiftMinutesMax, start >= firstMinute, start < endMinute,
                      start >= previousEnd else { return false }
                if !shifts[i].breaks.isEmpty {
                    guard shifts[i].breaks.count <= CalcLimits.breaksPerShiftMax, let given = shifts[i].breakMinutes else { return false }
                    var totalMinutes: Int64 = 0, cursor = start
                    for k in shifts[i].breaks.indices {
                        let breakStart = shifts[i].breaks[k].start.value, breakEnd = shifts[i].breaks[k].end.value
                        guard breakEnd > breakStart, breakStart >= cursor, breakEnd <= end else { return false }
                        totalMinutes += breakEnd - breakStart
                        cursor = breakEnd
                    }
                    guard totalMinutes < end - start, Int64(given) == totalMinutes else { return false }
                } else if let given = shifts[i].breakMinutes {
                    guard given >= 0, Int64(given) < end - start else { return false }
                } else if fillsDefault {
                    return false
                }
                previousEnd = end
            }
            return true
        }
    }

    private func validatedShifts() throws(PayrollError) -> [Shift] {
        guard shifts.count <= CalcLimits.shiftsMax else {
            throw PayrollError(.invalidValue, "too many shifts: \(shifts.count) (at most \(CalcLimits.shiftsMax) per request)", field: "shifts")
        }
        let window = allowedDates
        // The array is copied only when a shift changes (the batch path usually gives it ready).
        var normalised = shifts
        var sortedByStart = true
        for i in shifts.indices {
            if let changed = try Self.normalised(shift: shifts[i], index: i, window: window,
                                                 defaultBreakMinutes: contract.defaultBreakMinutes) {
                normalised[i] = changed
            }
            if i > 0 && shifts[i].start < shifts[i - 1].start { sortedByStart = false }
        }
        if sortedByStart {
            // Already in order (the stable sort below would keep it): only the overlap check.
            for i in normalised.indices.dropFirst() where normalised[i].start < normalised[i - 1].end {
                throw overlap(normalised, i, i - 1)
            }
            return normalised
        }
        // Sort by start (stable, so equal starts keep their order) and reject any overlap.
        let order = normalised.indices.sorted { (normalised[$0].start, $0) < (normalised[$1].start, $1) }
        var sorted: [Shift] = []
        sorted.reserveCapacity(order.count)
        var previous: Int? = nil
        for i in order {
            if let p = previous, normalised[i].start < normalised[p].end { throw overlap(normalised, i, p) }
            sorted.append(normalised[i])
            previous = i
        }
        return sorted
    }

    private func overlap(_ shifts: [Shift], _ i: Int, _ p: Int) -> PayrollError {
        PayrollError(.invalidValue, "shift \(shifts[i].start)–\(shifts[i].end) overlaps shifts[\(p)] (\(shifts[p].start)–\(shifts[p].end))",
                     field: "shifts[\(i)].start")
    }

    /// The shift with its breaks sorted and its break minutes filled in, or nil when it is already
    /// so; throws the first problem. The field path `shifts[i]` is built only on an error.
    private static func normalised(shift: Shift, index i: Int, window: ClosedRange<LocalDate>,
                                   defaultBreakMinutes: Int32?) throws(PayrollError) -> Shift? {
        let isAlreadyNormal = shift.breaks.isEmpty && (shift.breakMinutes != nil || (defaultBreakMinutes ?? 0) <= 0)
        if isAlreadyNormal {
            // The checks of `validated(shift:…)` for a shift without explicit breaks, in its order.
            let lengthMinutes = shift.end.value - shift.start.value
            if shift.end > shift.start, lengthMinutes <= CalcLimits.shiftMinutesMax, window.contains(shift.start.date),
               shift.breakMinutes.map({ $0 >= 0 && Int64($0) < lengthMinutes }) ?? true {
                return nil
            }
        }
        let result = try validated(shift: shift, index: i, window: window, defaultBreakMinutes: defaultBreakMinutes)
        // A shift with explicit breaks already sorted and its break minutes already their sum (what
        // the loader gives, and every shift of an input validated before) is unchanged: nil keeps
        // the caller from copying the whole shift array for it.
        if isAlreadyNormal || (result.breakMinutes == shift.breakMinutes && result.breaks == shift.breaks) { return nil }
        return result
    }

    private static func validated(shift: Shift, index i: Int, window: ClosedRange<LocalDate>,
                                  defaultBreakMinutes: Int32?) throws(PayrollError) -> Shift {
        // The field path, built only for an error (this runs for every shift given no break).
        var path: String { "shifts[\(i)]" }
        var shift = shift
        guard shift.end > shift.start else {
            throw PayrollError(.invalidValue, "shift ends at \(shift.end), not after its start \(shift.start)", field: path + ".end")
        }
        let lengthMinutes = shift.end.value - shift.start.value
        guard lengthMinutes <= CalcLimits.shiftMinutesMax else {
            throw PayrollError(.invalidValue, "shift is \(lengthMinutes) minutes long; at most \(CalcLimits.shiftMinutesMax) (24 h) are allowed",
                               field: path + ".end")
        }
        guard window.contains(shift.start.date) else {
            throw PayrollError(.invalidValue, "shift starts on \(shift.start.date), more than \(CalcLimits.daysAroundPeriodMax) days outside the period (\(window.lowerBound.adding(days: CalcLimits.daysAroundPeriodMax)) … \(window.upperBound.adding(days: -CalcLimits.daysAroundPeriodMax)))",
                               field: path + ".start")
        }
        if let b = shift.breakMinutes, b < 0 {
            throw PayrollError(.invalidValue, "breakMinutes must not be negative, got \(b)", field: path + ".breakMinutes")
        }
        if !shift.breaks.isEmpty {
            guard shift.breaks.count <= CalcLimits.breaksPerShiftMax else {
                throw PayrollError(.invalidValue, "too many breaks: \(shift.breaks.count) (at most \(CalcLimits.breaksPerShiftMax) per shift)",
                                   field: path + ".breaks")
            }
            for (k, b) in shift.breaks.enumerated() {
                guard b.end > b.start else {
                    throw PayrollError(.invalidValue, "break ends at \(b.end), not after its start \(b.start)", field: path + ".breaks[\(k)].end")
                }
                guard b.start >= shift.start, b.end <= shift.end else {
                    throw PayrollError(.invalidValue, "break \(b.start)–\(b.end) lies outside its shift \(shift.start)–\(shift.end)",
                                       field: path + ".breaks[\(k)]")
                }
            }
            // Breaks already in start order (the stored multirange's order) are walked as they are:
            // the stable sort below would give the same order, without its two arrays per shift.
            var inStartOrder = true
            for k in shift.breaks.indices.dropFirst() where shift.breaks[k].start < shift.breaks[k - 1].start {
                inStartOrder = false
                break
            }
            var totalMinutes: Int64 = 0
            var previous: Int? = nil
            func add(_ k: Int) throws(PayrollError) {
                let b = shift.breaks[k]
                if let p = previous, b.start < shift.breaks[p].end {
                    throw PayrollError(.invalidValue, "break \(b.start)–\(b.end) overlaps breaks[\(p)]", field: path + ".breaks[\(k)]")
                }
                totalMinutes += b.end.value - b.start.value
                previous = k
            }
            let order = inStartOrder ? nil : shift.breaks.indices.sorted { (shift.breaks[$0].start, $0) < (shift.breaks[$1].start, $1) }
            if let order {
                for k in order { try add(k) }
            } else {
                for k in shift.breaks.indices { try add(k) }
            }
            guard totalMinutes < lengthMinutes else {
                throw PayrollError(.invalidValue, "breaks cover the whole \(lengthMinutes)-minute shift", field: path + ".breaks")
            }
            if let b = shift.breakMinutes, Int64(b) != totalMinutes {
                throw PayrollError(.invalidValue, "breakMinutes \(b) disagrees with the \(totalMinutes) minutes of the explicit breaks (give one or make them agree)",
                                   field: path + ".breakMinutes")
            }
            if let order { shift.breaks = order.map { shift.breaks[$0] } }
            shift.breakMinutes = Int32(totalMinutes)
        } else if let b = shift.breakMinutes {
            guard Int64(b) < lengthMinutes else {
                throw PayrollError(.invalidValue, "a break of \(b) minutes is longer than (or as long as) its \(lengthMinutes)-minute shift",
                                   field: path + ".breakMinutes")
            }
        } else if let d = defaultBreakMinutes, d > 0 {
            guard Int64(d) < lengthMinutes else {
                throw PayrollError(.invalidValue, "contract.defaultBreakMinutes (\(d)) is longer than (or as long as) this \(lengthMinutes)-minute shift; give its breakMinutes",
                                   field: path)
            }
            shift.breakMinutes = d
        }
        return shift
    }

    /// The absences sorted by date, or nil when they already are (and unique); throws the first problem.
    private func validatedAbsences() throws(PayrollError) -> [Absence]? {
        guard absences.count <= CalcLimits.absencesMax else {
            throw PayrollError(.invalidValue, "too many absences: \(absences.count) (at most \(CalcLimits.absencesMax) per request)", field: "absences")
        }
        let window = allowedDates
        // Fast path: strictly ascending dates have no duplicate and are already sorted; any other
        // order takes the general path below, which reports the same first error.
        var ascending = true
        for (i, a) in absences.enumerated() {
            guard window.contains(a.date) else { ascending = false; break }
            if i > 0 && !(absences[i - 1].date < a.date) { ascending = false; break }
        }
        if ascending { return nil }
        var seen = Set<LocalDate>()
        for (i, a) in absences.enumerated() {
            guard window.contains(a.date) else {
                throw PayrollError(.invalidValue, "absence on \(a.date) is more than \(CalcLimits.daysAroundPeriodMax) days outside the period",
                                   field: "absences[\(i)].date")
            }
            guard seen.insert(a.date).inserted else {
                throw PayrollError(.invalidValue, "a second absence on \(a.date)", field: "absences[\(i)].date")
            }
        }
        return absences.sorted { $0.date < $1.date }
    }
}
