import PostgresClient
import Testing
@testable import PayrollStore

@Suite("payrun.enqueue_recalculation")
struct EnqueueRecalculationTests {
    let connection: PostgresConnection
    typealias F = StoreFixture

    init() throws {
        connection = try StoreFixture.twoTenants("enqueue")
    }

    private func enqueue(_ connection: PostgresConnection, tenant: Int64, employee: Int64, period: String) throws -> Int64? {
        try connection.queryOne("SELECT payrun.enqueue_recalculation($1, $2, $3::date)",
                                [.int(tenant), .int(employee), .text(period)])?.decode(Int64?.self, at: 0)
    }

    @Test("a backend enqueues in its own transaction; a second request while pending is deduplicated")
    func enqueue_deduplicatesPendingRequests() throws {
        let (first, second) = try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
            (try enqueue(connection, tenant: F.tenantA, employee: F.employeeA, period: "2026-11-01"),
             try enqueue(connection, tenant: F.tenantA, employee: F.employeeA, period: "2026-11-01"))
        }
        #expect(first != nil)
        #expect(first == second)
        let jobs = try connection.query("SELECT kind, tenant_id, payload->>'employeeId', state FROM payrun.jobs")
        #expect(jobs.count == 1)
        #expect(try jobs.first?.string(at: 0) == "employee.recalc")
        #expect(try jobs.first?.string(at: 2) == String(F.employeeA))

        // Once that job runs, a new request gets a new job: the running one may have read old inputs.
        try connection.execute(
            "UPDATE payrun.jobs SET state = 'running', lease_token = gen_random_uuid(), leased_until = now() + interval '1 minute'")
        let third = try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
            try enqueue(connection, tenant: F.tenantA, employee: F.employeeA, period: "2026-11-01")
        }
        #expect(third != nil && third != first)
    }

    @Test("a request for another tenant, or an unknown employee, is refused")
    func enqueue_otherTenant_isRefused() throws {
        let other = #expect(throws: PostgresError.self) {
            try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
                try enqueue(connection, tenant: F.tenantB, employee: F.employeeB, period: "2026-11-01")
            }
        }
        #expect(other?.kind == .insufficientPrivilege)
        let foreignEmployee = #expect(throws: PostgresError.self) {
            try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
                try enqueue(connection, tenant: F.tenantA, employee: F.employeeB, period: "2026-11-01")
            }
        }
        #expect(foreignEmployee?.kind == .foreignKeyViolation)
        let count = try connection.queryOne("SELECT count(*) FROM payrun.jobs")
        #expect(try count?.int(at: 0) == 0)
    }

    @Test("a request that hits an approved run becomes a pending correction, not a job")
    func enqueue_lockedRun_recordsPendingCorrection() throws {
        try connection.execute("UPDATE payrun.payroll_runs SET status = 'approved', approved_at = now() WHERE id = $1", [.int(F.runA)])
        let job = try F.asRole("payrun_backend", tenant: F.tenantA, on: connection) { connection in
            _ = try enqueue(connection, tenant: F.tenantA, employee: F.employeeA, period: "2026-11-15")
            return try enqueue(connection, tenant: F.tenantA, employee: F.employeeA, period: "2026-11-15")
        }
        #expect(job == nil)
        let corrections = try connection.query("SELECT run_id, employee_id FROM payrun.pending_corrections WHERE resolved_at IS NULL")
        #expect(corrections.count == 1)
        #expect(try corrections.first?.int64(at: 0) == F.runA)
        let jobs = try connection.queryOne("SELECT count(*) FROM payrun.jobs")
        #expect(try jobs?.int(at: 0) == 0)
    }
}
