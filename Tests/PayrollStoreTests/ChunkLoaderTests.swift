import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

@Suite("ChunkLoader and PayslipWriter")
struct ChunkLoaderTests {
    @Test("a loaded chunk equals the PayrollInput built by hand from the same data")
    func loadedChunkEqualsHandBuiltInput() throws {
        let c = try PayrollDataFixture.migrated("chunk_load")
        try PayrollDataFixture.seed(c)
        let chunk = try c.transaction { c in
            try TenantScope.set(PayrollDataFixture.tenant, on: c)
            return try ChunkLoader.load(run: try PayrollDataFixture.run(c), selection: .range(from: 5201, to: 5202), on: c)
        }
        #expect(chunk.employees.map(\.employeeId) == [PayrollDataFixture.hourly, PayrollDataFixture.monthly])
        for loaded in chunk.employees {
            let input = try loaded.input.get()
            let expected = try PayrollDataFixture.expectedInput(loaded.employeeId).validated()
            #expect(input.shifts == expected.shifts)
            #expect(input.absences == expected.absences)
            #expect(input.periodStart == expected.periodStart && input.periodEnd == expected.periodEnd && input.payDate == expected.payDate)
            #expect(input.employee.id == expected.employee.id && input.employee.birthDate == expected.employee.birthDate)
            #expect(input.employee.hiredOn == expected.employee.hiredOn && input.employee.family == expected.employee.family)
            #expect(input.employee.children8to20 == expected.employee.children8to20)
            #expect(input.employee.withholdingRatio == expected.employee.withholdingRatio)
            #expect(input.contract.wageWon == expected.contract.wageWon && input.contract.wageType == expected.contract.wageType)
            #expect(input.contract.scheduleMinutes == expected.contract.scheduleMinutes)
            #expect(input.contract.defaultBreakMinutes == expected.contract.defaultBreakMinutes)
            #expect(input.contract.nonTaxable.mealsWon == expected.contract.nonTaxable.mealsWon)
            #expect(input.contract.insuranceBase.healthWon == expected.contract.insuranceBase.healthWon)
            #expect(input.workplace.holidays?.entries.map(\.date) == expected.workplace.holidays?.entries.map(\.date))
            #expect(loaded.inputDigest == InputDigest.digest(expected))
            #expect(try PayrollCalculator.calculate(input) == (try PayrollCalculator.calculate(expected)))
        }
    }

    @Test("written payslips read back equal PayrollCalculator's; a rerun replaces them (revision 2), never duplicates")
    func writeAndReplacePayslips() throws {
        let c = try PayrollDataFixture.migrated("payslip_write")
        try PayrollDataFixture.seed(c)
        let tenant = PayrollDataFixture.tenant, runId = PayrollDataFixture.run
        for round in 1...2 {
            let outcome = try c.transaction { c in
                try TenantScope.set(tenant, on: c)
                return try ChunkProcessor.process(tenantId: tenant, runId: runId, version: 1, chunkNo: 0, from: 5201, to: 5202,
                                                  on: c)
            }
            #expect(outcome.employees == 2 && outcome.failures.isEmpty && outcome.finalizedRun)
            let stored = try StoredPayslip.fetch(tenantId: tenant, runId: runId, on: c)
            #expect(stored.count == 2)
            #expect(stored.allSatisfy { $0.revision == Int32(round) })
            for s in stored {
                let expected = try PayrollCalculator.calculate(PayrollDataFixture.expectedInput(s.employeeId))
                #expect(try s.result.get() == expected)
                #expect(CalcResponseEncoder.encode(try s.result.get()) == CalcResponseEncoder.encode(expected))
            }
        }
        let run = try PayrollDataFixture.run(c)
        #expect(run.status == .calculated && run.employeesDone == 2 && run.employeesFailed == 0)
        let gross = try [PayrollDataFixture.hourly, PayrollDataFixture.monthly]
            .map { try PayrollCalculator.calculate(PayrollDataFixture.expectedInput($0)).gross }.reduce(0, +)
        #expect(run.grossWon == gross)
        #expect(run.inputDigestHex?.count == 64)
    }
}
