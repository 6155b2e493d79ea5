import Testing
@testable import PayrollRules

/// One published cell of §5.6: 월급여액 row (lower bound in 천원) × family count.
struct PublishedCell: CustomTestStringConvertible, Sendable {
    var rowLowK: Int64
    var rowHighK: Int64
    var family: Int
    var tax: Int64
    var testDescription: String { "row \(rowLowK)–\(rowHighK)천원, n = \(family) → \(tax)" }
}

/// §5.6 of kr-payroll-rules.md (identical in the 2024.2.29 and 2026.2.27 tables).
let section56Cells: [PublishedCell] = {
    let rows: [(Int64, Int64, [Int64])] = [
        (1_060, 1_065, [1_040, 0, 0, 0, 0]),
        (1_500, 1_510, [8_920, 4_420, 0, 0, 0]),
        (2_000, 2_010, [19_520, 14_750, 6_600, 3_220, 0]),
        (3_000, 3_020, [74_350, 56_850, 31_940, 26_690, 0]),
        (3_500, 3_520, [127_220, 102_220, 62_460, 49_340, 10_640]),
        (5_000, 5_020, [335_470, 306_710, 237_850, 219_100, 87_850]),
        (8_000, 8_020, [959_500, 909_890, 768_550, 738_550, 528_550]),
        (10_000, 10_000, [1_507_400, 1_431_570, 1_200_840, 1_170_840, 960_840]),
    ]
    return rows.flatMap { low, high, taxes in
        zip([1, 2, 3, 4, 11], taxes).map { PublishedCell(rowLowK: low, rowHighK: high, family: $0, tax: $1) }
    }
}()

let table2026 = SimplifiedTaxTable.versions.value(on: d("2026-11-25"))!

@Suite("간이세액표 grid (§5.2 algorithm against §5.6 and §5.3–§5.4)")
struct SimplifiedTaxTableTests {
    @Test("§5.6 published cell, at the bracket's lower bound", arguments: section56Cells)
    func publishedCellLowerBound(_ c: PublishedCell) {
        #expect(table2026.amountWon(payWon: c.rowLowK * 1000, family: c.family).amountWon == c.tax)
    }

    @Test("§5.6 published cell, one 원 below the bracket's upper bound", arguments: section56Cells.filter { $0.rowLowK < 10_000 })
    func publishedCellUpperBound(_ c: PublishedCell) {
        #expect(table2026.amountWon(payWon: c.rowHighK * 1000 - 1, family: c.family).amountWon == c.tax)
    }

    @Test("§5.6 published cell, in the 2024.2.29 table (payment 2025-06-25)", arguments: section56Cells)
    func publishedCell2024Table(_ c: PublishedCell) {
        let table2024 = SimplifiedTaxTable.versions.value(on: d("2025-06-25"))!
        #expect(table2024.amountWon(payWon: c.rowLowK * 1000, family: c.family).amountWon == c.tax)
    }

    @Test("over 10,000천원 (§5.3)", arguments: [
        (Int64(12_000_000), 1, Int64(2_218_400)), (15_000_000, 1, 3_276_800), (15_000_000, 4, 2_940_240),
        (50_000_000, 1, 17_002_000), (100_000_000, 1, 38_392_000), (20_000_000, 2, 5_062_970),
        (10_000_010, 1, 1_532_400), (12_000_000, 2, 2_142_570),
    ])
    func overTenMillion(_ c: (pay: Int64, family: Int, tax: Int64)) {
        #expect(table2026.amountWon(payWon: c.pay, family: c.family) == (c.tax, .overTop))
    }

    @Test("§5.3 brackets chain continuously (no jump except +25,000 just above 10,000,000)")
    func overTenMillionContinuity() {
        for edge: Int64 in [14_000_000, 28_000_000, 30_000_000, 45_000_000, 87_000_000] {
            let at = table2026.amountWon(payWon: edge, family: 1).amountWon
            let after = table2026.amountWon(payWon: edge + 100, family: 1).amountWon
            #expect(after - at >= 0 && after - at <= 50, "edge \(edge)")
        }
    }

    @Test("more than 11 family (§5.4): 5,000,000 and n = 12 → 87,850 − 18,750 = 69,100")
    func moreThanElevenFamily() {
        #expect(table2026.amountWon(payWon: 5_000_000, family: 12).amountWon == 69_100)
        #expect(table2026.amountWon(payWon: 5_000_000, family: 99).amountWon == 0)
    }

    @Test("below 770천원 there is no tax")
    func belowTable() {
        #expect(table2026.amountWon(payWon: 769_999, family: 1) == (0, .belowTable))
        #expect(table2026.amountWon(payWon: 0, family: 1) == (0, .belowTable))
    }

    @Test("worked-example rows: 1,690–1,700 → 12,840; 1,485–1,490 → 8,560; 1,640–1,650 → 11,810; 3,300–3,320 n=4 → 36,580")
    func workedExampleRows() {
        #expect(table2026.amountWon(payWon: 1_692_480, family: 1) == (12_840, .row(lowK: 1_690, highK: 1_700)))
        #expect(table2026.amountWon(payWon: 1_486_080, family: 1) == (8_560, .row(lowK: 1_485, highK: 1_490)))
        #expect(table2026.amountWon(payWon: 1_644_920, family: 1) == (11_810, .row(lowK: 1_640, highK: 1_650)))
        #expect(table2026.amountWon(payWon: 3_300_000, family: 4) == (36_580, .row(lowK: 3_300, highK: 3_320)))
    }

    @Test("the grid has 647 rows and its smallest non-zero cell is 1,030 (§5.2 step 10)")
    func gridShape() {
        #expect(SimplifiedTaxTable.rowCount == 647)
        #expect(table2026.cellsWon.count == 647 * 11)
        #expect(table2026.cellsWon.filter { $0 > 0 }.min() == 1_030)
    }

    @Test("every row's bracket is found by pay lookup at both ends")
    func rowLookupMatchesBrackets() {
        for row in 0..<(SimplifiedTaxTable.rowCount - 1) {
            let (lowK, highK) = SimplifiedTaxTable.bracketK(row: row)
            #expect(SimplifiedTaxTable.locate(payWon: lowK * 1000)! == (row, lowK, highK))
            #expect(SimplifiedTaxTable.locate(payWon: highK * 1000 - 1)! == (row, lowK, highK))
        }
        #expect(SimplifiedTaxTable.locate(payWon: 10_000_000)! == (646, 10_000, 10_000))
        #expect(SimplifiedTaxTable.locate(payWon: 10_000_001) == nil)
    }

    @Test("the grid is non-decreasing in pay and non-increasing in family count")
    func gridMonotone() {
        var violations: [String] = []
        for row in 0..<SimplifiedTaxTable.rowCount {
            for family in 1...11 {
                let cell = table2026.cell(row: row, family: family)
                if row > 0 && table2026.cell(row: row - 1, family: family) > cell { violations.append("row \(row) n \(family) vs row above") }
                if family > 1 && table2026.cell(row: row, family: family - 1) < cell { violations.append("row \(row) n \(family) vs n-1") }
            }
        }
        #expect(violations.isEmpty, "\(violations.prefix(10))")
    }
}
