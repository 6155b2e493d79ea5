import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// `PayslipWriter` writes a payslip's line columns in place in the COPY row: the row bytes must be
/// those of the line arrays built on their own (`PayslipJSON`) and copied in as fields.
@Suite("Payslip COPY row: lines written in place, same bytes")
struct PayslipRowEncodingTests {
    /// The columns as they were encoded before: each array built, then copied into the row.
    static func referenceLines(of slip: Payslip, into r: inout BinaryCopyRowEncoder) {
        r.bytea(PayslipJSON.earnings(slip.earnings))
        r.bytea(PayslipJSON.deductions(slip.deductions))
        r.bytea(PayslipJSON.warnings(slip.warnings, jsonbVersionByte: true))
    }

    static func payslip(_ seed: Int) -> Payslip {
        let warnings = seed % 3 == 0 ? [] : (0..<(seed % 4)).map { k in
            PayrollWarning(code: WarningCode.allCases[(seed + k) % WarningCode.allCases.count],
                           message: PayslipLineJSONTests.texts[(seed + k) % PayslipLineJSONTests.texts.count],
                           date: k % 2 == 0 ? nil : LocalDate(daysSinceEpoch: 20_500 + Int32(k)))
        }
        return Payslip(employeeId: "E\(seed)", ruleSet: "kr-2026.03", minutes: MinuteBuckets(),
                       earnings: PayslipLineJSONTests.earningLines(seed), gross: 0, nonTaxable: 0, taxable: 0,
                       deductions: PayslipLineJSONTests.deductionLines(seed), totalDeductions: 0, net: 0, warnings: warnings)
    }

    @Test("2,000 payslips of mixed lines and warnings: in-place rows equal copied arrays, one buffer growing past its capacity")
    func rowsMatchCopiedArrays() {
        let inPlace = BinaryCopyRowBuffer(initialCapacityBytes: 64)
        let reference = BinaryCopyRowBuffer(initialCapacityBytes: 64)
        for seed in 0..<2_000 {
            let slip = Self.payslip(seed)
            inPlace.row { PayslipWriter.encodeLines(of: slip, into: &$0) }
            reference.row { Self.referenceLines(of: slip, into: &$0) }
        }
        #expect(inPlace.rowCount == 2_000)
        #expect(inPlace.byteCount == reference.byteCount)
        #expect(inPlace.bytes == reference.bytes)
    }
}
