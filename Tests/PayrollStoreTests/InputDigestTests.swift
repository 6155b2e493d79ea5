import PayrollRules
import Testing
@testable import PayrollStore

/// The input digest is stored with every payslip and compared across runs, so its bytes must not
/// change when its implementation does: these values were computed by the original encoder.
@Suite("Input digest")
struct InputDigestTests {
    @Test("the digest of the fixture's inputs is the recorded one (an hourly and a monthly employee)")
    func digest_isStable() throws {
        let hourly = PayrollDataFixture.expectedInput(PayrollDataFixture.hourly)
        let monthly = PayrollDataFixture.expectedInput(PayrollDataFixture.monthly)
        #expect(hex(InputDigest.digest(hourly)) == "297a79d7648f049632fc19c6e54110aaac618822d58a4fdf4cae928034ddf4fe")
        #expect(hex(InputDigest.digest(monthly)) == "13321f1b34f6fa7b8a770f2ccdf7bfd14f82a878d5392ac49413aaa9693856bf")
    }

    @Test("every field that can change a payslip changes the digest")
    func digest_coversFields() throws {
        let base = PayrollDataFixture.expectedInput(PayrollDataFixture.hourly)
        var variants: [PayrollInput] = []
        var v = base; v.payDate = v.payDate.adding(days: 1); variants.append(v)
        v = base; v.employee.family += 1; variants.append(v)
        v = base; v.employee.leftOn = v.periodEnd; variants.append(v)
        v = base; v.contract.wageWon += 1; variants.append(v)
        v = base; v.contract.nonTaxable.mealsWon += 1; variants.append(v)
        v = base; v.contract.insuranceBase.healthWon = 1_000_000; variants.append(v)
        v = base; v.shifts[0].breakMinutes = (v.shifts[0].breakMinutes ?? 0) + 1; variants.append(v)
        v = base; v.shifts.removeLast(); variants.append(v)
        v = base; v.absences.append(Absence(date: v.periodStart, kind: .unexcused)); variants.append(v)
        v = base; v.workplace.fiveOrMore.toggle(); variants.append(v)
        let digests = Set(([base] + variants).map { hex(InputDigest.digest($0)) })
        #expect(digests.count == variants.count + 1)
        #expect(InputDigest.digest(base).count == 32)
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
