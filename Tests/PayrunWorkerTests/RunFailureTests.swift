import Foundation
import JobQueue
import PayrollStore
@testable import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Synchronization
import Testing

/// Wraps a payroll handler: while `failing` is on, jobs matching `matches` throw an injected error
/// (retryable, or permanent) instead of running; the final-failure hook is the wrapped handler's.
final class FailureSwitch: Sendable {
    let failing = Atomic<Bool>(true)
}

struct InjectedFailureHandler: JobHandler {
    let inner: any JobHandler
    let failure: FailureSwitch
    let permanent: Bool
    let matches: @Sendable (ClaimedJob) -> Bool
    var kinds: [String] { inner.kinds }

    func handle(_ job: ClaimedJob, context: JobContext) throws {
        if failure.failing.load(ordering: .relaxed) && matches(job) {
            let message = "injected failure of job \(job.id) attempt \(job.attempt)"
            throw permanent ? JobFailure.permanent(message) : JobFailure.retryable(message)
        }
        try inner.handle(job, context: context)
    }

    func onFinalFailure(_ job: ClaimedJob, error: String, context: JobContext) throws {
        try inner.onFinalFailure(job, error: error, context: context)
    }
}

@Suite("A payroll job that fails for good fails its run", .serialized)
struct RunFailureTests {
    static func runStatus(_ runId: Int64, _ c: PostgresConnection) throws -> String {
        try c.queryOne("SELECT status FROM payrun.payroll_runs WHERE id = $1", [.int(runId)]).map { try $0.string(at: 0) } ?? "missing"
    }

    static func runError(_ runId: Int64, _ c: PostgresConnection) throws -> [String?] {
        guard let row = try c.queryOne("""
            SELECT error ->> 'code', error ->> 'jobId', error ->> 'kind', error ->> 'message'
              FROM payrun.payroll_runs WHERE id = $1
            """, [.int(runId)]) else { return [] }
        return try (0..<4).map { try row.decode(String?.self, at: $0) }
    }

    @Test("a chunk job out of attempts marks its run failed with the job and last error; a retry of the job then calculates the run")
    func chunkFailureFailsRunAndRetryCompletesIt() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 1, employeesPerWorkplace: 12)
        let (database, c) = try PayrollEndToEnd.database("chunk_fail", employer: employer)
        defer { database.drop() }
        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        try #require(scheduled.count == 1)
        let runId = scheduled[0].runId

        let failure = FailureSwitch()
        let chunk = InjectedFailureHandler(inner: RunChunkJobHandler(), failure: failure, permanent: false,
                                           matches: { job in
                                               // A packed payload lists its parts (one each here: 5 + 5 + 2 with at most 5).
                                               guard let payload = try? JobPayload(job) else { return false }
                                               if let parts = try? RunChunkJobHandler.parts(payload) { return parts.first?.chunkNo == 1 }
                                               return (try? payload.int("chunk")) == 1
                                           })
        let handlers: [any JobHandler] = [RunPlanJobHandler(chunkEmployeesMax: 5), chunk, RecalcJobHandler()]
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: handlers, logger: WorkerFixture.logger))
        defer { pool.stop() }

        #expect(try WorkerFixture.wait(timeout: .seconds(60)) { try Self.runStatus(runId, c) == "failed" })
        let failedJob = try #require(try c.queryOne(
            "SELECT id, attempts, max_attempts FROM payrun.jobs WHERE kind = 'run.chunk' AND state = 'failed'"))
        let jobId = try failedJob.int64(at: 0)
        #expect(try failedJob.int64(at: 1) == (try failedJob.int64(at: 2)))
        let error = try Self.runError(runId, c)
        #expect(error.count == 4)
        #expect(error.first == "job_failed")
        #expect(error.dropFirst().first == "\(jobId)")
        #expect(error.dropFirst(2).first == "run.chunk")
        #expect(error.last??.hasPrefix("injected failure of job \(jobId)") == true)
        let reason = try c.transaction { c -> String? in
            try TenantScope.set(PayrollEndToEnd.tenant, on: c)
            return try RunFailure.reason(tenantId: PayrollEndToEnd.tenant, runId: runId, on: c)
        }
        #expect(reason?.hasPrefix("run.chunk job \(jobId) failed: injected failure") == true)
        // The other chunks were stored; the run stays failed while they finish.
        #expect(try WorkerFixture.wait(timeout: .seconds(30)) {
            try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.chunk' AND state = 'succeeded'", on: c) == 2
        })
        #expect(try Self.runStatus(runId, c) == "failed")
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 7)

        // The operator fixes the cause and retries the job: the run is finalized as usual.
        failure.failing.store(false, ordering: .relaxed)
        try JobQueue.retry(id: jobId, on: c)
        #expect(try WorkerFixture.wait(timeout: .seconds(30)) { ["calculated", "calculated_with_errors"].contains(try Self.runStatus(runId, c)) })
        #expect(try Self.runError(runId, c) == [nil, nil, nil, nil])
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 12)
        #expect(try WorkerFixture.count("SELECT chunks_done FROM payrun.payroll_runs WHERE id = \(runId)", on: c) == 3)
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state <> 'succeeded'", on: c) == 0)
        #expect(pool.error == nil)
    }

    @Test("a plan job failing permanently marks its run failed; a retry of the job plans and calculates the run")
    func planFailureFailsRunAndRetryPlansIt() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 1, employeesPerWorkplace: 6)
        let (database, c) = try PayrollEndToEnd.database("plan_fail", employer: employer)
        defer { database.drop() }
        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        try #require(scheduled.count == 1)
        let runId = scheduled[0].runId
        let planJobId = try #require(scheduled[0].planJobId)

        let failure = FailureSwitch()
        let plan = InjectedFailureHandler(inner: RunPlanJobHandler(chunkEmployeesMax: 5), failure: failure, permanent: true,
                                          matches: { _ in true })
        let handlers: [any JobHandler] = [plan, RunChunkJobHandler(), RecalcJobHandler()]
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: handlers, logger: WorkerFixture.logger))
        defer { pool.stop() }

        #expect(try WorkerFixture.wait(timeout: .seconds(30)) { try Self.runStatus(runId, c) == "failed" })
        let error = try Self.runError(runId, c)
        #expect(error.first == "job_failed")
        #expect(error.dropFirst().first == "\(planJobId)")
        #expect(error.dropFirst(2).first == "run.plan")
        #expect(try WorkerFixture.count("SELECT attempts FROM payrun.jobs WHERE id = \(planJobId)", on: c) == 1)

        failure.failing.store(false, ordering: .relaxed)
        try JobQueue.retry(id: planJobId, on: c)
        #expect(try WorkerFixture.wait(timeout: .seconds(30)) { ["calculated", "calculated_with_errors"].contains(try Self.runStatus(runId, c)) })
        #expect(try Self.runError(runId, c) == [nil, nil, nil, nil])
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 6)
        #expect(pool.error == nil)
    }

    @Test("a packed chunk job failing for good marks every run in it failed with the job; a retry of the job calculates them all")
    func packedChunkFailureFailsEveryRun() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 3, employeesPerWorkplace: 4)
        let (database, c) = try PayrollEndToEnd.database("packed_fail", employer: employer)
        defer { database.drop() }
        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        try #require(scheduled.count == 3)
        let runIds = scheduled.map(\.runId)

        let failure = FailureSwitch()
        let chunk = InjectedFailureHandler(inner: RunChunkJobHandler(), failure: failure, permanent: true, matches: { _ in true })
        let handlers: [any JobHandler] = [RunPlanJobHandler(chunkEmployeesMax: 100), chunk, RecalcJobHandler()]
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: handlers, logger: WorkerFixture.logger))
        defer { pool.stop() }

        #expect(try WorkerFixture.wait(timeout: .seconds(30)) { try runIds.allSatisfy { try Self.runStatus($0, c) == "failed" } })
        // The three runs' parts were one job.
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE kind = 'run.chunk'", on: c) == 1)
        let jobId = try #require(try c.queryOne("SELECT id FROM payrun.jobs WHERE kind = 'run.chunk' AND state = 'failed'")?.int64(at: 0))
        for runId in runIds {
            let error = try Self.runError(runId, c)
            #expect(error.first == "job_failed" && error.dropFirst().first == "\(jobId)" && error.dropFirst(2).first == "run.chunk")
        }
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 0)

        failure.failing.store(false, ordering: .relaxed)
        try JobQueue.retry(id: jobId, on: c)
        #expect(try WorkerFixture.wait(timeout: .seconds(30)) {
            try runIds.allSatisfy { ["calculated", "calculated_with_errors"].contains(try Self.runStatus($0, c)) }
        })
        for runId in runIds { #expect(try Self.runError(runId, c) == [nil, nil, nil, nil]) }
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 12)
        #expect(pool.error == nil)
    }

    @Test("a chunk job whose payload lists a part twice fails at its first attempt, naming the part; the calculated runs stay as they are")
    func duplicatePartFailsPermanently() throws {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 3, employeesPerWorkplace: 4)
        let (database, c) = try PayrollEndToEnd.database("duplicate_part", employer: employer)
        defer { database.drop() }
        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let runIds = scheduled.map(\.runId)
        let handlers: [any JobHandler] = [RunPlanJobHandler(chunkEmployeesMax: 100), RunChunkJobHandler(), RecalcJobHandler()]
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: handlers, logger: WorkerFixture.logger))
        defer { pool.stop() }
        #expect(try WorkerFixture.wait(timeout: .seconds(30)) {
            try runIds.allSatisfy { ["calculated", "calculated_with_errors"].contains(try Self.runStatus($0, c)) }
        })
        // The succeeded job's first part, listed twice.
        let part = try #require(try c.queryOne(
            "SELECT (payload -> 'parts' -> 0)::text FROM payrun.jobs WHERE kind = 'run.chunk' AND state = 'succeeded'")?.string(at: 0))
        let jobId = try JobQueue.enqueue(NewJob(kind: "run.chunk", tenantId: PayrollEndToEnd.tenant,
                                                payload: "{\"parts\": [\(part), \(part)]}"), on: c).jobId
        #expect(try WorkerFixture.wait(timeout: .seconds(30)) {
            try c.queryOne("SELECT state FROM payrun.jobs WHERE id = $1", [.int(jobId)])?.string(at: 0) == "failed"
        })
        let failed = try #require(try c.queryOne("SELECT attempts, errors::text FROM payrun.jobs WHERE id = $1", [.int(jobId)]))
        #expect(try failed.int64(at: 0) == 1)
        #expect(try failed.string(at: 1).contains("is listed twice in one job"))
        for runId in runIds { #expect(["calculated", "calculated_with_errors"].contains(try Self.runStatus(runId, c))) }
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.payslips", on: c) == 12)
        #expect(pool.error == nil)
    }
}
