import PostgresClient
import Testing
@testable import PayrollStore

@Suite("RunFailure: which runs a job that failed for good may fail")
struct RunFailureStoreTests {
    static let tenant = PayrollDataFixture.tenant

    static func status(_ c: PostgresConnection, _ runId: Int64) throws -> String? {
        try c.queryOne("SELECT status FROM payrun.payroll_runs WHERE id = $1", [.int(runId)])?.string(at: 0)
    }

    static func mark(_ c: PostgresConnection, _ runId: Int64, version: Int32?, jobId: Int64) throws -> Bool {
        try c.transaction { c in
            try TenantScope.set(Self.tenant, on: c)
            return try RunFailure.markFailed(tenantId: Self.tenant, runId: runId, version: version, jobId: jobId,
                                             jobKind: version == nil ? PayrollJobKind.plan : PayrollJobKind.chunk,
                                             lastError: "boom \(jobId)", on: c)
        }
    }

    @Test("only a run still computing for the job is failed: not a replanned version, not by a plan job once planned, not twice, not an approved run")
    func onlyTheJobsRunIsFailed() throws {
        let c = try RunLifecycleTests.seededWithoutRun("run_failure_guard")
        let runId = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)[0].runId
        _ = try c.transaction { c in
            try TenantScope.set(Self.tenant, on: c)
            return try RunPlanner.plan(tenantId: Self.tenant, runId: runId, chunkEmployeesMax: 1, on: c)
        }
        #expect(try Self.status(c, runId) == "calculating")
        #expect(try Self.mark(c, runId, version: 2, jobId: 901) == false)
        #expect(try Self.mark(c, runId, version: nil, jobId: 902) == false)
        #expect(try Self.status(c, runId) == "calculating")
        #expect(try Self.mark(c, runId, version: 1, jobId: 903) == true)
        #expect(try Self.mark(c, runId, version: 1, jobId: 904) == false)
        #expect(try Self.status(c, runId) == "failed")
        let reason = try c.transaction { c in
            try TenantScope.set(Self.tenant, on: c)
            return try RunFailure.reason(tenantId: Self.tenant, runId: runId, on: c)
        }
        #expect(reason == "run.chunk job 903 failed: boom 903")

        try c.execute("UPDATE payrun.payroll_runs SET status = 'approved', approved_at = now(), error = NULL WHERE id = $1", [.int(runId)])
        #expect(try Self.mark(c, runId, version: 1, jobId: 905) == false)
        #expect(try Self.status(c, runId) == "approved")
    }
}
