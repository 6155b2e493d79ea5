import Testing
@testable import PayrollRules

/// calc-api.md's documented request and response: rules spec §8 Example 1 through the whole
/// single-employee path (decode → EarningsCalculator → non-taxable lines → DeductionCalculator →
/// payslip → JSON).
@Suite("calc API: golden Example 1")
struct CalcAPIGoldenTests {
    static func goldenPayslip() throws -> Payslip {
        try PayrollCalculator.calculate(try CalcRequestDecoder.decode(CalcAPIFixture.golden))
    }

    @Test("Example 1 (2026-11, 5인 이상, Mon–Fri 17:30–24:00, break 20:00–20:30): gross 1,692,480, deductions 178,550, net 1,513,930")
    func totals() throws {
        let p = try Self.goldenPayslip()
        #expect(p.employeeId == "e-1")
        #expect(p.ruleSet == "kr-2026.11")
        #expect(p.gross == 1_692_480)
        #expect(p.nonTaxable == 0)
        #expect(p.taxable == 1_692_480)
        #expect(p.totalDeductions == 178_550)
        #expect(p.net == 1_513_930)
    }

    @Test("Example 1 minutes: worked 7200 = regular 7200, night 2400, 주휴 1440, nothing else")
    func minutes() throws {
        let m = try Self.goldenPayslip().minutes
        #expect(m.worked == 7200)
        #expect(m.regular == 7200)
        #expect(m.overtime == 0 && m.partTimeExcess == 0 && m.holiday == 0 && m.holidayOver8 == 0)
        #expect(m.night == 2400)
        #expect(m.weeklyAllowance == 1440)
        #expect(m.paidHoliday == 0)
    }

    @Test("Example 1 lines: base_pay 1,238,400, weekly_allowance 247,680, night 206,400; deductions 80,370 / 60,840 / 7,990 / 15,230 / 12,840 / 1,280")
    func lines() throws {
        let p = try Self.goldenPayslip()
        let earnings = Dictionary(p.earnings.map { ($0.code, $0.amount) }, uniquingKeysWith: +)
        #expect(earnings == [.basePay: 1_238_400, .weeklyAllowance: 247_680, .night: 206_400])
        let base = p.earnings.first { $0.code == .basePay }
        #expect(base?.minutes == 7200)
        #expect(base?.rate == Rational(10320))
        let deductions = Dictionary(p.deductions.map { ($0.code, $0.amount) }, uniquingKeysWith: +)
        #expect(deductions == [.nationalPension: 80_370, .healthInsurance: 60_840, .longTermCare: 7_990,
                               .employmentInsurance: 15_230, .incomeTax: 12_840, .localIncomeTax: 1_280])
        #expect(p.deductions.first { $0.code == .nationalPension }?.base == 1_692_000)
    }

    @Test("Example 1 as JSON: starts with the documented keys and minutes, ends with totals and net")
    func json() throws {
        let text = CalcResponseEncoder.encode(try Self.goldenPayslip())
        #expect(text.hasPrefix(#"{"employeeId":"e-1","ruleSet":"kr-2026.11","minutes":{"worked":7200,"regular":7200,"overtime":0,"partTimeExcess":0,"night":2400,"holiday":0,"holidayOver8":0,"weeklyAllowance":1440,"paidHoliday":0},"earnings":[{"code":"base_pay","minutes":7200,"rate":10320,"multiplier":"1","amount":1238400,"method":"#))
        #expect(text.contains(#""gross":1692480,"nonTaxable":0,"taxable":1692480,"deductions":[{"code":"national_pension","base":1692000,"amount":80370,"#))
        #expect(text.contains(#""totalDeductions":178550,"net":1513930,"warnings":["#))
    }

    @Test("rule 11: 250,000원 meals add a non_taxable_meals line of 250,000; 200,000 exempt, 50,000 taxable")
    func nonTaxableMeals() throws {
        let json = contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "nonTaxable": {"meals": 250000, "childcare": 100000}"#)
        let p = try PayrollCalculator.calculate(try CalcRequestDecoder.decode(json))
        #expect(p.gross == 1_692_480 + 350_000)
        #expect(p.nonTaxable == 300_000)
        #expect(p.taxable == 1_692_480 + 50_000)
        let meals = p.earnings.first { $0.code == .nonTaxableMeals }
        #expect(meals?.amount == 250_000 && meals?.minutes == nil && meals?.rate == nil)
        #expect(p.earnings.first { $0.code == .nonTaxableChildcare }?.amount == 100_000)
        #expect(!p.earnings.contains { $0.code == .nonTaxableCarAllowance })
        // The insurance bases follow taxable pay (rules spec §4): 국민연금 base floor1000(1,742,480).
        #expect(p.deductions.first { $0.code == .nationalPension }?.base == 1_742_000)
        #expect(p.net == p.gross - p.totalDeductions)
    }

    @Test("tax none: no income-tax lines; the insurance lines stay")
    func taxNone() throws {
        let json = contract(replacing: #""wage": 10320"#, with: #""wage": 10320, "tax": "none""#)
        let p = try PayrollCalculator.calculate(try CalcRequestDecoder.decode(json))
        #expect(!p.deductions.contains { $0.code == .incomeTax || $0.code == .localIncomeTax })
        #expect(p.totalDeductions == 80_370 + 60_840 + 7_990 + 15_230)
    }

    @Test("declared insurance bases that push deductions above gross fail the employee with a clear error, no crash")
    func negativeNetIsAnError() throws {
        // One 1-hour shift (10,320원) with a declared 6,000,000원 health base.
        let json = CalcAPIFixture.request(
            contract: #"{"wageType": "hourly", "wage": 10320, "schedule": {"mon": 60}, "insuranceBase": {"health": 6000000}}"#,
            shifts: [CalcAPIFixture.plainShift("2026-11-02T09:00", "2026-11-02T10:00")])
        do {
            let p = try PayrollCalculator.calculate(try CalcRequestDecoder.decode(json))
            Issue.record("expected an error, got net \(p.net)")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("exceed gross"))
        }
    }
}

/// The batch path builds `PayrollInput` directly (no JSON): `PayrollCalculator` validates it the
/// same way and gives the same payslip.
@Suite("calc API: PayrollInput built without JSON")
struct CalcAPIDirectInputTests {
    @Test("unsorted shifts built in code give the same payslip as the JSON request")
    func unsortedShiftsSameResult() throws {
        var input = try CalcRequestDecoder.decode(CalcAPIFixture.golden)
        let viaJSON = try PayrollCalculator.calculate(input)
        input.shifts.reverse()
        #expect(try PayrollCalculator.calculate(input) == viaJSON)
    }

    @Test("overlapping shifts built in code are an invalid_value PayrollError, not a crash")
    func overlappingShiftsInCode() throws {
        var input = try CalcRequestDecoder.decode(CalcAPIFixture.golden)
        input.shifts.append(Shift(start: input.shifts[0].start.adding(minutes: 60), end: input.shifts[0].end))
        do {
            _ = try PayrollCalculator.calculate(input)
            Issue.record("expected an overlap error")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.field == "shifts[20].start")
        }
    }

    @Test("a premium month outside the tables is unsupported also without JSON")
    func coverageInCode() throws {
        var input = try CalcRequestDecoder.decode(CalcAPIFixture.golden)
        input.periodStart = LocalDate(year: 2027, month: 1, day: 1)!
        input.periodEnd = LocalDate(year: 2027, month: 1, day: 31)!
        input.shifts = []
        #expect(throws: PayrollError.self) { try PayrollCalculator.calculate(input) }
    }
}
