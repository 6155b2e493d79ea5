/// The 근로소득 간이세액표 (소득세법 시행령 별표 2) as a precomputed grid: 646 bracket rows plus the
/// 10,000천원 row, × family counts 1…11, generated once (lazily, on first use) from the §5.2
/// algorithm in exact arithmetic (`SimplifiedTaxCell`). A lookup is an index computation and one
/// array read, so the batch path can afford it for every payslip.
public struct SimplifiedTaxTable: Sendable {
    /// Family columns of the published grid (note 4 extends beyond; §5.4).
    public static let familyColumns = 11
    /// Grid row count: 646 brackets + the 10,000천원 row.
    public static let rowCount = RowBand.all.reduce(0) { $0 + $1.rowCount } + 1

    public let body: SimplifiedTableBody
    /// Row-major, `rowCount × familyColumns`, 원.
    let cellsWon: [Int32]

    public init(body: SimplifiedTableBody) {
        self.body = body
        var cells = [Int32]()
        cells.reserveCapacity(Self.rowCount * Self.familyColumns)
        for row in 0..<Self.rowCount {
            let midpointWon = Self.midpointWon(row: row)
            for family in 1...Self.familyColumns {
                let cell = SimplifiedTaxCell.amountWon(midpointWon: midpointWon, family: family, body: body)
                precondition(cell >= 0 && cell <= Int64(Int32.max), "table cell out of range")
                cells.append(Int32(cell))
            }
        }
        self.cellsWon = cells
    }

    /// The table versions by payment date: one grid per `WithholdingParameters.simplifiedTableBody`
    /// version, generated on first access.
    public static let versions: ParameterTable<SimplifiedTaxTable> = ParameterTable(
        WithholdingParameters.simplifiedTableBody.name,
        WithholdingParameters.simplifiedTableBody.versions.map {
            EffectiveDated(SimplifiedTaxTable(body: $0.value), from: $0.from, toExclusive: $0.toExclusive,
                           source: $0.source, confidence: $0.confidence)
        })

    // MARK: Rows

    /// A run of equal-width brackets (월급여액 in 천원, [startK, endK)).
    struct RowBand {
        let startK: Int64
        let endK: Int64
        let widthK: Int64
        let firstRow: Int
        var rowCount: Int { Int((endK - startK) / widthK) }

        /// §5.2 step 1.
        static let all: [RowBand] = [
            RowBand(startK: 770, endK: 1_500, widthK: 5, firstRow: 0),
            RowBand(startK: 1_500, endK: 3_000, widthK: 10, firstRow: 146),
            RowBand(startK: 3_000, endK: 10_000, widthK: 20, firstRow: 296),
        ]
    }

    /// Index of the 10,000천원 row.
    static let topRow = rowCount - 1

    /// The bracket midpoint M (원) of a row; the top row is exactly 10,000,000.
    static func midpointWon(row: Int) -> Int64 {
        if row == topRow { return 10_000_000 }
        let (lowK, highK) = bracketK(row: row)
        return (lowK + highK) * 500
    }

    /// The row's bracket [lowK, highK) in 천원 (the top row is [10,000, 10,000]).
    static func bracketK(row: Int) -> (lowK: Int64, highK: Int64) {
        if row == topRow { return (10_000, 10_000) }
        for band in RowBand.all where row < band.firstRow + band.rowCount {
            let lowK = band.startK + Int64(row - band.firstRow) * band.widthK
            return (lowK, lowK + band.widthK)
        }
        preconditionFailure("row \(row) outside the grid")
    }

    /// The grid row of 월급여액 `payWon` and its bracket in 천원, or nil below 770천원 or above
    /// 10,000천원 (§5.2 step 1).
    static func locate(payWon: Int64) -> (row: Int, lowK: Int64, highK: Int64)? {
        let k = payWon / 1000
        if k < 770 { return nil }
        if k < 1_500 { let lowK = 770 + (k - 770) / 5 * 5; return (Int((lowK - 770) / 5), lowK, lowK + 5) }
        if k < 3_000 { let lowK = 1_500 + (k - 1_500) / 10 * 10; return (146 + Int((lowK - 1_500) / 10), lowK, lowK + 10) }
        if k < 10_000 { let lowK = 3_000 + (k - 3_000) / 20 * 20; return (296 + Int((lowK - 3_000) / 20), lowK, lowK + 20) }
        return payWon == 10_000_000 ? (topRow, 10_000, 10_000) : nil
    }

    /// The published cell at (row, family 1…11).
    func cell(row: Int, family: Int) -> Int64 {
        Int64(cellsWon[row * Self.familyColumns + family - 1])
    }

    // MARK: Lookup (§5.2–§5.4)

    /// Where a table amount came from, for the 계산방법 text.
    public enum Source: Sendable, Hashable {
        /// 월급여액 under 770천원: no tax.
        case belowTable
        /// A grid row, bracket [lowK, highK) 천원 (the 10,000천원 row has lowK == highK).
        case row(lowK: Int64, highK: Int64)
        /// Above 10,000천원: the §5.3 formula.
        case overTop
    }

    /// The §5.2–§5.4 amount (`tableCell` of calc-api) for 월급여액 `payWon` ≥ 0 and `family` ≥ 1.
    public func amountWon(payWon: Int64, family: Int) -> (amountWon: Int64, source: Source) {
        precondition(payWon >= 0 && family >= 1, "validated by the caller")
        if family <= Self.familyColumns { return columnAmount(payWon: payWon, family: family) }
        // §5.4 (note 4): tax(n) = tax(11) − (tax(10) − tax(11)) × (n − 11), not below 0.
        let (t11, source) = columnAmount(payWon: payWon, family: 11)
        let t10 = columnAmount(payWon: payWon, family: 10).amountWon
        return (max(t11 - (t10 - t11) * Int64(family - 11), 0), source)
    }

    func columnAmount(payWon: Int64, family: Int) -> (amountWon: Int64, source: Source) {
        if let (row, lowK, highK) = Self.locate(payWon: payWon) {
            return (cell(row: row, family: family), .row(lowK: lowK, highK: highK))
        }
        if payWon < body.topRowWon { return (0, .belowTable) }
        return (overTopAmountWon(payWon: payWon, family: family), .overTop)
    }

    /// §5.3: T10 + added + (W − from) × rate, floored to 10원 ([M]: the 별표 states no rounding).
    func overTopAmountWon(payWon: Int64, family: Int) -> Int64 {
        let t10 = cell(row: Self.topRow, family: family)
        for bracket in body.overTopBrackets where bracket.upToWon.map({ payWon <= $0 }) ?? true {
            let rate = bracket.rate
            let scaled = Int128(t10 + bracket.addedWon) * Int128(rate.denominator)
                + Int128(payWon - bracket.fromWon) * Int128(rate.numerator)
            return Money.floor10(Int64(scaled / Int128(rate.denominator)))
        }
        preconditionFailure("the last §5.3 bracket is open-ended")
    }
}
