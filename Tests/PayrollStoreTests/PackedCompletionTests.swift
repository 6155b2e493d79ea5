import Foundation
import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// `RunFinalizer.completeChunks`: every part of a packed job completed with a fixed number of
/// statements — counted once per chunk, finalized by exactly one transaction, errors named.
@Suite("Packed job completion: all parts at once")
struct PackedCompletionTests {
    typealias P = PackedMonthEndTests

    /// Schedules October 2026 and plans it with chunks small enough to split the largest workplace.
    static func planned(_ label: String) throws -> (PostgresConnection, RunPlanner.PackedOutcome) {
        let c = try P.seeded(label)
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let outcome = try P.planAll(c, chunkMax: try P.chunkMax(c))
        return (c, outcome)
    }

    /// Runs whose chunks were split over several parts, with their parts in chunk order.
    static func splitRuns(_ outcome: RunPlanner.PackedOutcome) -> [Int64: [RunPlanner.Part]] {
        Dictionary(grouping: outcome.jobs.flatMap { $0 }, by: \.runId)
            .filter { $0.value.count > 1 }
            .mapValues { $0.sorted { $0.chunkNo < $1.chunkNo } }
    }

    @Test("one job holding every part, split runs included, finalizes each run once with the digests and totals of job-by-job processing; again, it counts nothing twice")
    func everyPartInOneJob() throws {
        let (all, outcome) = try Self.planned("completion_all")
        let (byJob, outcomeByJob) = try Self.planned("completion_by_job")
        try #require(!Self.splitRuns(outcome).isEmpty)
        #expect(outcome.jobs.map { $0.map(\.chunkNo) } == outcomeByJob.jobs.map { $0.map(\.chunkNo) })

        let result = try P.process(all, outcome.jobs.flatMap { $0 })
        #expect(result.finalizedRunIds == outcome.plannedRunIds)
        #expect(result.partsDone == outcome.jobs.reduce(0) { $0 + $1.count })
        for job in outcomeByJob.jobs { _ = try P.process(byJob, job) }

        let runs = try P.runRows(all)
        #expect(runs == (try P.runRows(byJob)))
        #expect(try P.storedRows(all) == (try P.storedRows(byJob)))
        #expect(try P.count(all, "SELECT count(*) FROM payrun.payroll_runs WHERE chunks_done <> chunks_total OR status NOT LIKE 'calculated%'") == 0)
        #expect(try P.count(all, "SELECT count(*) FROM payrun.run_chunks WHERE finished_at IS NULL OR finish_us IS NULL OR input_digest IS NULL") == 0)

        // The same parts again (a retried job): chunks are not counted twice, the runs are refreshed to the same result.
        let again = try P.process(all, outcome.jobs.flatMap { $0 })
        #expect(again.finalizedRunIds == outcome.plannedRunIds)
        #expect(try P.runRows(all) == runs)
    }

    @Test("a part naming a chunk that was never planned fails the job, naming the chunk; nothing is stored")
    func unknownChunkFailsTheJob() throws {
        let (c, outcome) = try Self.planned("completion_unknown")
        let job = try #require(outcome.jobs.first)
        let ghost = RunPlanner.Part(runId: job[0].runId, version: job[0].version, chunkNo: 999,
                                    from: Int64.max - 10, to: Int64.max - 5, employees: 0)
        let error = #expect(throws: PayrollStoreError.self) { _ = try P.process(c, job + [ghost]) }
        #expect(error?.kind == .notFound)
        #expect(error?.message.contains("chunk 999 of run \(job[0].runId) does not exist") == true)
        #expect(try P.count(c, "SELECT count(*) FROM payrun.payslips") == 0)
        #expect(try P.count(c, "SELECT count(*) FROM payrun.run_chunks WHERE finished_at IS NOT NULL") == 0)
    }

    @Test("a part listed twice in one job is refused before anything is loaded")
    func duplicatePartIsRefused() throws {
        let (c, outcome) = try Self.planned("completion_duplicate")
        let job = try #require(outcome.jobs.first)
        let error = #expect(throws: PayrollStoreError.self) { _ = try P.process(c, job + [job[0]]) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.message.contains("is listed twice in one job") == true)
        #expect(try P.count(c, "SELECT count(*) FROM payrun.payslips") == 0)
    }

    @Test("two jobs finishing the last two chunks of a run at once: the second waits for the first's count and finalizes the run alone")
    func concurrentJobsFinalizeOnce() throws {
        let url = try StoreTestDatabase.createEmpty("completion_race")
        let c = try PostgresConnection(url: url)
        try Migrator().migrate(c)
        _ = try StoreSeeder.seed(P.spec, on: c)
        _ = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        let outcome = try P.planAll(c, chunkMax: try P.chunkMax(c))
        let (runId, parts) = try #require(Self.splitRuns(outcome).first)
        let tenant = try P.tenant(c)
        // Every other part first, so the run's last two chunks are left.
        let others = outcome.jobs.flatMap { $0 }.filter { $0.runId != runId } + parts.dropLast(2)
        _ = try P.process(c, others)
        let first = [parts[parts.count - 2]], second = [parts[parts.count - 1]]

        // The first job stores and counts its chunk, not committed (it holds the run row).
        try c.execute("BEGIN")
        try TenantScope.set(tenant, on: c)
        let firstOutcome = try ChunkProcessor.processParts(tenantId: tenant, parts: P.requests(first), on: c)
        #expect(firstOutcome.finalizedRunIds.isEmpty)
        // The second job, on another connection, stores its chunk and waits at the count.
        let secondJob = BackgroundWork<[Int64]>(url: url) { other in
            try other.execute("SET statement_timeout = '20s'")
            return try other.transaction { t in
                try TenantScope.set(tenant, on: t)
                return try ChunkProcessor.processParts(tenantId: tenant, parts: P.requests(second), on: t)
                    .finalizedRunIds
            }
        }
        try waitForLockWait(on: c, who: "the second job")
        try c.execute("COMMIT")
        #expect(try secondJob.result().get() == [runId])
        let run = try #require(try c.queryOne("SELECT chunks_done, chunks_total, status, employees_done + employees_failed FROM payrun.payroll_runs WHERE id = $1",
                                              [.int(runId)]))
        #expect(try run.int32(at: 0) == Int32(parts.count) && run.int32(at: 1) == Int32(parts.count))
        #expect(try run.string(at: 2).hasPrefix("calculated"))
        #expect(try run.int32(at: 3) == Int32(parts.reduce(0) { $0 + $1.employees }))
    }
}
