/// Decodes one `payrun calc` request (`../shared/spec/calc-api.md`) into a validated
/// `PayrollInput`: every field, every default, every check of the contract. Errors carry the
/// contract's codes and a dotted field path.
public enum CalcRequestDecoder {
    /// Decodes a request line (UTF-8 JSON).
    public static func decode(_ line: UnsafeBufferPointer<UInt8>) throws(PayrollError) -> PayrollInput {
        try decode(try RequestObject.requestLine(line, allowed: fields))
    }

    public static func decode(_ text: String) throws(PayrollError) -> PayrollInput {
        try UTF8Text.withBytes(text) { bytes throws(PayrollError) in try decode(bytes) }
    }

    /// Decodes an already parsed request.
    public static func decode(_ json: JSONValue) throws(PayrollError) -> PayrollInput {
        try decode(try RequestObject.request(json, allowed: fields))
    }

    /// The members of a request object.
    static let fields = ["periodStart", "periodEnd", "payDate", "workplace", "employee", "contract", "shifts", "absences"]

    static func decode(_ root: RequestObject) throws(PayrollError) -> PayrollInput {
        let periodStart = try root.requiredDate("periodStart")
        let periodEnd = try root.requiredDate("periodEnd")
        let payDate = try root.requiredDate("payDate")
        let workplace = try decodeWorkplace(try root.required("workplace"))
        let employee = try decodeEmployee(try root.required("employee"))
        let contract = try decodeContract(try root.required("contract"))
        guard case .array(let shiftValues) = try root.required("shifts") else {
            throw PayrollError(.invalidValue, "expected an array of shifts", field: "shifts")
        }
        guard shiftValues.count <= CalcLimits.shiftsMax else {
            throw PayrollError(.invalidValue, "too many shifts: \(shiftValues.count) (at most \(CalcLimits.shiftsMax) per request)",
                               field: "shifts")
        }
        var shifts: [Shift] = []
        shifts.reserveCapacity(shiftValues.count)
        for (i, v) in shiftValues.enumerated() { shifts.append(try decodeShift(v, path: "shifts[\(i)]")) }
        var absences: [Absence] = []
        for (i, v) in (try root.optionalArray("absences", max: CalcLimits.absencesMax) ?? []).enumerated() {
            let o = try RequestObject(v, path: "absences[\(i)]", allowed: ["date", "kind"])
            absences.append(Absence(date: try o.requiredDate("date"), kind: try o.requiredEnum("kind", AbsenceKind.self)))
        }
        let input = PayrollInput(periodStart: periodStart, periodEnd: periodEnd, payDate: payDate, workplace: workplace,
                                 employee: employee, contract: contract, shifts: shifts, absences: absences)
        return try input.validated()
    }

    // MARK: - Parts

    static func decodeWorkplace(_ v: JSONValue) throws(PayrollError) -> Workplace {
        let o = try RequestObject(v, path: "workplace", allowed: ["fiveOrMore", "holidays"])
        let fiveOrMore = try o.requiredBool("fiveOrMore")
        var calendar: HolidayCalendar? = nil
        if let values = try o.optionalArray("holidays", max: CalcLimits.holidaysMax) {
            var dates: [LocalDate] = []
            dates.reserveCapacity(values.count)
            for (i, d) in values.enumerated() {
                let date = try JSONField.date(d, field: "workplace.holidays[\(i)]")
                if !dates.contains(date) { dates.append(date) }
            }
            calendar = HolidayCalendar(dates: dates)
        }
        return Workplace(fiveOrMore: fiveOrMore, holidays: calendar)
    }

    static func decodeEmployee(_ v: JSONValue) throws(PayrollError) -> Employee {
        let o = try RequestObject(v, path: "employee", allowed: [
            "id", "birthDate", "hiredOn", "leftOn", "family", "children8to20", "withholdingRatio",
        ])
        let id = try o.requiredString("id")
        // Ranges here only keep the values inside Int; `PayrollInput.validated()` gives the
        // precise messages (family ≥ 1, children ≤ family, ratio ∈ {80, 100, 120}).
        let wide: ClosedRange<Int64> = -1_000_000...1_000_000
        return Employee(
            id: id,
            birthDate: try o.optionalDate("birthDate"),
            hiredOn: try o.optionalDate("hiredOn"),
            leftOn: try o.optionalDate("leftOn"),
            family: Int(try o.optionalInt("family", wide) ?? 1),
            children8to20: Int(try o.optionalInt("children8to20", wide) ?? 0),
            withholdingRatio: Int(try o.optionalInt("withholdingRatio", wide) ?? 100)
        )
    }

    static func decodeContract(_ v: JSONValue) throws(PayrollError) -> Contract {
        let o = try RequestObject(v, path: "contract", allowed: [
            "wageType", "wage", "schedule", "weekStart", "weeklyHoliday", "defaultBreakMinutes",
            "weeklyAllowance", "nightAllowance", "overtimeAllowance", "holidayAllowance",
            "insurance", "insuranceBase", "tax", "nonTaxable",
        ])
        let wageType = try o.requiredEnum("wageType", WageType.self)
        let wage = try o.requiredInt("wage", 1...CalcLimits.amountWonMax)
        let schedule = try RequestObject(try o.required("schedule"), path: "contract.schedule",
                                         allowed: Weekday.allCases.map(\.key))
        var scheduleMinutes = [Int32](repeating: 0, count: 7)
        for day in Weekday.allCases {
            scheduleMinutes[day.rawValue] = Int32(try schedule.optionalInt(day.key, 0...1440) ?? 0)
        }
        var insurance = InsuranceFlags()
        if let iv = o.optional("insurance") {
            let io = try RequestObject(iv, path: "contract.insurance", allowed: ["nationalPension", "health", "employment"])
            insurance = InsuranceFlags(nationalPension: try io.optionalBool("nationalPension") ?? true,
                                       health: try io.optionalBool("health") ?? true,
                                       employment: try io.optionalBool("employment") ?? true)
        }
        var bases = InsuranceBases()
        if let bv = o.optional("insuranceBase") {
            let bo = try RequestObject(bv, path: "contract.insuranceBase", allowed: ["nationalPension", "health", "employment"])
            let range: ClosedRange<Int64> = 0...CalcLimits.amountWonMax
            bases = InsuranceBases(nationalPensionWon: try bo.optionalInt("nationalPension", range),
                                   healthWon: try bo.optionalInt("health", range),
                                   employmentWon: try bo.optionalInt("employment", range))
        }
        var nonTaxable = NonTaxableItems()
        if let nv = o.optional("nonTaxable") {
            let no = try RequestObject(nv, path: "contract.nonTaxable", allowed: ["meals", "carAllowance", "childcare"])
            let range: ClosedRange<Int64> = 0...CalcLimits.amountWonMax
            nonTaxable = NonTaxableItems(mealsWon: try no.optionalInt("meals", range) ?? 0,
                                         carAllowanceWon: try no.optionalInt("carAllowance", range) ?? 0,
                                         childcareWon: try no.optionalInt("childcare", range) ?? 0)
        }
        return Contract(
            wageType: wageType,
            wageWon: wage,
            scheduleMinutes: scheduleMinutes,
            weekStart: try o.optionalWeekday("weekStart") ?? .mon,
            weeklyHoliday: try o.optionalWeekday("weeklyHoliday") ?? .sun,
            defaultBreakMinutes: try o.optionalInt("defaultBreakMinutes", 0...1440).map { Int32($0) },
            weeklyAllowance: try o.optionalEnum("weeklyAllowance", AllowanceSwitch.self) ?? .statutory,
            nightAllowance: try o.optionalEnum("nightAllowance", AllowanceSwitch.self) ?? .statutory,
            overtimeAllowance: try o.optionalEnum("overtimeAllowance", AllowanceSwitch.self) ?? .statutory,
            holidayAllowance: try o.optionalEnum("holidayAllowance", AllowanceSwitch.self) ?? .statutory,
            insurance: insurance,
            insuranceBase: bases,
            tax: try o.optionalEnum("tax", TaxMode.self) ?? .simplified,
            nonTaxable: nonTaxable
        )
    }

    static func decodeShift(_ v: JSONValue, path: String) throws(PayrollError) -> Shift {
        let o = try RequestObject(v, path: path, allowed: ["start", "end", "breakMinutes", "breaks"])
        let start = try o.requiredTime("start")
        let end = try o.requiredTime("end")
        let breakMinutes = try o.optionalInt("breakMinutes", 0...1440).map { Int32($0) }
        var breaks: [BreakWindow] = []
        if let values = try o.optionalArray("breaks", max: CalcLimits.breaksPerShiftMax) {
            breaks.reserveCapacity(values.count)
            for (k, b) in values.enumerated() {
                let bo = try RequestObject(b, path: "\(path).breaks[\(k)]", allowed: ["start", "end"])
                breaks.append(BreakWindow(start: try bo.requiredTime("start"), end: try bo.requiredTime("end")))
            }
        }
        return Shift(start: start, end: end, breakMinutes: breakMinutes, breaks: breaks)
    }
}
