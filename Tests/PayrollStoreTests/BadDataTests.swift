import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

@Suite("Bad data in the database")
struct BadDataTests {
    @Test("a reversed shift, a missing contract and an impossible wage fail only their employees, named by field; the run completes for the others")
    func badRowsFailOnlyTheirEmployees() throws {
        let c = try PayrollDataFixture.migrated("bad_data")
        try PayrollDataFixture.seed(c)
        let tenant = PayrollDataFixture.tenant, workplace = PayrollDataFixture.workplace
        // Constraints bypassed (as a broken import might): drop the checks in this test database.
        try c.execute("ALTER TABLE payrun.shifts DROP CONSTRAINT shifts_end_after_start")
        try c.execute("ALTER TABLE payrun.contracts DROP CONSTRAINT contracts_wage_won_check")
        try c.execute("""
            INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES
                ($1, 5203, $2, 'Reversed shift'), ($1, 5204, $2, 'No contract'), ($1, 5205, $2, 'Zero wage')
            """, [.int(tenant), .int(workplace)])
        for (employee, wage) in [(5203, 10_320), (5205, 0)] as [(Int64, Int64)] {
            try c.execute("""
                INSERT INTO payrun.contracts (tenant_id, employee_id, effective_from, wage_type, wage_won, scheduled_mon_minutes)
                VALUES ($1, $2, '2026-01-01', 'hourly', $3, 480)
                """, [.int(tenant), .int(employee), .int(wage)])
        }
        let reversed = try c.queryOne("""
            INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at)
            VALUES ($1, 5203, '2026-10-05T18:00:00+09:00', '2026-10-05T09:00:00+09:00') RETURNING id
            """, [.int(tenant)])?.int64(at: 0) ?? -1
        try c.execute("UPDATE payrun.run_chunks SET employee_id_to = 5205, employees_planned = 5")

        let outcome = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            return try ChunkProcessor.process(tenantId: tenant, runId: PayrollDataFixture.run, version: 1, chunkNo: 0,
                                              from: 5201, to: 5205, on: c)
        }
        #expect(outcome.employees == 5)
        let failures = Dictionary(uniqueKeysWithValues: outcome.failures.map { ($0.employeeId, $0.error) })
        #expect(failures.count == 3)
        #expect(failures[5203]?.field == "shifts[id=\(reversed)].end")
        #expect(failures[5204]?.field == "contract" && failures[5204]?.code == .missingField)
        #expect(failures[5205]?.field == "contract.wage")

        let run = try PayrollDataFixture.run(c)
        #expect(run.status == .calculatedWithErrors && run.employeesDone == 2 && run.employeesFailed == 3)
        let stored = try StoredPayslip.fetch(tenantId: tenant, runId: PayrollDataFixture.run, on: c)
        #expect(stored.map(\.employeeId) == [5201, 5202, 5203, 5204, 5205])
        for s in stored where s.employeeId <= 5202 {
            #expect(try s.result.get() == (try PayrollCalculator.calculate(PayrollDataFixture.expectedInput(s.employeeId))))
        }
        for s in stored where s.employeeId > 5202 {
            guard case .failure(let error) = s.result else { Issue.record("employee \(s.employeeId) should have failed"); continue }
            #expect(error == failures[s.employeeId])
        }
    }

    @Test("errors about shifts name the stored shift id (looked up after the load, which reads no shift ids), in every part of a packed load")
    func shiftErrorsNameStoredIdsInPackedLoads() throws {
        let c = try PayrollDataFixture.migrated("bad_shift_names")
        try PayrollDataFixture.seed(c)
        let tenant = PayrollDataFixture.tenant, workplace = PayrollDataFixture.workplace
        try c.execute("ALTER TABLE payrun.shifts DROP CONSTRAINT shifts_end_after_start")
        try c.execute("""
            INSERT INTO payrun.employees (tenant_id, id, workplace_id, name) VALUES
                ($1, 5203, $2, 'Reversed shift'), ($1, 5204, $2, 'Overlapping shifts')
            """, [.int(tenant), .int(workplace)])
        for employee in [5203, 5204] as [Int64] {
            try c.execute("""
                INSERT INTO payrun.contracts (tenant_id, employee_id, effective_from, wage_type, wage_won, scheduled_mon_minutes)
                VALUES ($1, $2, '2026-01-01', 'hourly', 10320, 480)
                """, [.int(tenant), .int(employee)])
        }
        func shift(_ employee: Int64, _ start: String, _ end: String) throws -> Int64 {
            try c.queryOne("""
                INSERT INTO payrun.shifts (tenant_id, employee_id, starts_at, ends_at) VALUES ($1, $2, $3::timestamptz, $4::timestamptz)
                RETURNING id
                """, [.int(tenant), .int(employee), .text(start), .text(end)])?.int64(at: 0) ?? -1
        }
        _ = try shift(5203, "2026-10-02T09:00:00+09:00", "2026-10-02T12:00:00+09:00")
        let reversed = try shift(5203, "2026-10-05T18:00:00+09:00", "2026-10-05T09:00:00+09:00")
        // Inserted later but starting earlier: the loader's order (by start) is not the id order.
        let overlapping = try shift(5204, "2026-10-06T17:00:00+09:00", "2026-10-06T20:00:00+09:00")
        _ = try shift(5204, "2026-10-06T09:00:00+09:00", "2026-10-06T18:00:00+09:00")

        let chunks = try c.transaction { c in
            try TenantScope.set(tenant, on: c)
            let run = try PayrollDataFixture.run(c)
            return try ChunkLoader.loadParts([ChunkLoader.PartSelection(run: run, from: 5201, to: 5203),
                                              ChunkLoader.PartSelection(run: run, from: 5204, to: 5204)], on: c)
        }
        #expect(chunks.map { $0.employees.map(\.employeeId) } == [[5201, 5202, 5203], [5204]])
        func failure(_ part: Int, _ employee: Int64) -> PayrollError? {
            guard case .failure(let error)? = chunks[part].employees.first(where: { $0.employeeId == employee })?.input else { return nil }
            return error
        }
        #expect(failure(0, 5203)?.field == "shifts[id=\(reversed)].end")
        #expect(failure(1, 5204)?.field == "shifts[id=\(overlapping)].start")
        #expect(failure(0, 5201) == nil && failure(0, 5202) == nil)
    }
}
