import Testing
@testable import PayrollRules

/// Payslip invariants (STYLE.md) and the non-taxable parameters of calc-api rule 11.
@Suite("calc API: payslip invariants and non-taxable limits")
struct CalcAPIInvariantTests {
    static let good = CalcAPIEncodingTests.payslip()

    static func expectViolation(_ p: Payslip, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try p.checkInvariants()
            Issue.record("expected an invariant violation containing \(fragment)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains("invariant"), sourceLocation: sourceLocation)
        }
    }

    @Test("a consistent payslip passes")
    func consistent() throws {
        try Self.good.checkInvariants()
    }

    @Test("earnings lines must add up to gross")
    func linesAddUpToGross() {
        var p = Self.good
        p.gross += 1
        p.taxable += 1
        p.net += 1
        Self.expectViolation(p, "not to gross")
    }

    @Test("net must equal gross − totalDeductions, and total must be the sum of deduction lines")
    func netAndTotal() {
        var p = Self.good
        p.net -= 10
        Self.expectViolation(p, "net")
        var q = Self.good
        q.totalDeductions += 10
        q.net -= 10
        Self.expectViolation(q, "not to totalDeductions")
    }

    @Test("no negative amounts, minutes or net")
    func noNegatives() {
        var p = Self.good
        p.earnings[0].amount = -1
        Self.expectViolation(p, "negative")
        var q = Self.good
        q.deductions[0].amount = -5
        Self.expectViolation(q, "negative")
        var r = Self.good
        r.minutes.night = -1
        Self.expectViolation(r, "negative")
    }

    @Test("every earnings and deduction line states its method (시행령 §27의2; the database no longer checks it, 0014)")
    func everyLineHasMethod() {
        var p = Self.good
        p.earnings[1].method = ""
        Self.expectViolation(p, "earnings line night has no method")
        var q = Self.good
        q.deductions[0].method = ""
        Self.expectViolation(q, "deduction national_pension has no method")
    }

    @Test("minute buckets add up to worked minutes; night ≤ worked")
    func buckets() {
        var p = Self.good
        p.minutes.overtime = 60
        Self.expectViolation(p, "minute buckets")
        var q = Self.good
        q.minutes.night = 7201
        Self.expectViolation(q, "night")
    }

    @Test("taxable = gross − nonTaxable, nonTaxable within gross")
    func taxableSplit() {
        var p = Self.good
        p.taxable -= 1
        Self.expectViolation(p, "taxable")
    }

    @Test("rule 11: each non-taxable item is exempt up to 200,000원 for every covered payment date, with a source")
    func nonTaxableLimits() {
        for item in NonTaxableItem.allCases {
            for date in [RuleCoverage.payDateFirst, LocalDate(year: 2026, month: 12, day: 10)!, LocalDate(year: 2027, month: 1, day: 10)!] {
                let v = item.exemptLimits.version(on: date)
                #expect(v?.value == 200_000, "\(item) on \(date)")
                #expect(v?.source.contains("calc-api rule 11") == true)
            }
        }
    }

    @Test("non-taxable method text shows the exempt and taxable parts")
    func nonTaxableMethod() {
        #expect(PayrollCalculator.nonTaxableMethod(.meals, amountWon: 250_000, exemptWon: 200_000, limitWon: 200_000)
                == "식대 250,000원: 비과세 200,000원 (월 한도 200,000원), 과세 50,000원")
        #expect(PayrollCalculator.nonTaxableMethod(.childcare, amountWon: 100_000, exemptWon: 100_000, limitWon: 200_000)
                == "보육수당 100,000원: 비과세 100,000원 (월 한도 200,000원)")
    }
}

@Suite("calc API: rule coverage")
struct CalcAPICoverageTests {
    @Test("the accepted dates are today's tables: premium months 2025-01 … 2026-12, payment dates from 2024-03-01")
    func coverage() {
        #expect(RuleCoverage.premiumMonthFirst == LocalDate(year: 2025, month: 1, day: 1))
        #expect(RuleCoverage.premiumMonthLast == LocalDate(year: 2026, month: 12, day: 1))
        #expect(RuleCoverage.payDateFirst == LocalDate(year: 2024, month: 3, day: 1))
        #expect(RuleCoverage.premiumMonthsText == "2025-01 … 2026-12")
    }
}
