import Foundation
import JobQueue
import PayrollStore
@testable import PayrunWorker
import PostgresClient
import PostgresTestSupport
import Testing

/// `ChunkCommit` (`payrun worker --chunk-commit`): what `synchronous_commit` each job's transaction
/// commits with, observed at its commit by a deferred constraint trigger on `payrun.jobs` (it fires
/// in the completing transaction, just before its COMMIT, and records the setting in that
/// transaction); and the payslips are the same either way.
@Suite("Chunk job commit mode")
struct ChunkCommitTests {
    static func monthEnd(_ commit: ChunkCommit) throws -> (settings: [String: Set<String>], payslips: [String: String]) {
        let employer = DemoEmployer(tenantId: PayrollEndToEnd.tenant, workplaces: 2, employeesPerWorkplace: 9)
        let (database, c) = try PayrollEndToEnd.database("chunk_commit_\(commit.rawValue)", employer: employer)
        defer { database.drop() }
        // The test cluster runs with synchronous_commit off (PAYRUN_PG_FAST): the worker's sessions
        // get the server's usual `on` from the database.
        try c.executeScript("""
            DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET synchronous_commit = on', current_database()); END $$;
            CREATE TABLE public.commit_settings (job_id bigint NOT NULL, kind text NOT NULL, synchronous_commit text NOT NULL);
            CREATE FUNCTION public.record_commit_setting() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO public.commit_settings VALUES (NEW.id, NEW.kind, current_setting('synchronous_commit'));
                RETURN NULL;
            END $$;
            CREATE CONSTRAINT TRIGGER record_commit_setting AFTER UPDATE ON payrun.jobs DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW WHEN (NEW.state = 'succeeded' AND OLD.state <> 'succeeded') EXECUTE FUNCTION public.record_commit_setting();
            """)
        let scheduled = try RunScheduler.scheduleMonthEnd(year: 2026, month: 10, on: c)
        #expect(scheduled.count == 2)
        let handlers: [any JobHandler] = [RunPlanJobHandler(chunkEmployeesMax: 4), RunChunkJobHandler(commit: commit), RecalcJobHandler()]
        let pool = RunningPool(WorkerPool(configuration: WorkerFixture.configuration(database.url, threads: 2, lease: 10),
                                          handlers: handlers, logger: WorkerFixture.logger))
        defer { pool.stop() }
        #expect(try WorkerFixture.wait(timeout: .seconds(60)) { try PayrollEndToEnd.calculatedRuns(c) == 2 })
        #expect(pool.error == nil)
        // Every job that succeeded recorded its setting once.
        #expect(try WorkerFixture.count("SELECT count(*) FROM payrun.jobs WHERE state = 'succeeded'", on: c)
                == (try WorkerFixture.count("SELECT count(*) FROM public.commit_settings", on: c)))
        var settings: [String: Set<String>] = [:]
        for row in try c.query("SELECT kind, synchronous_commit FROM public.commit_settings") {
            settings[try row.string(at: 0), default: []].insert(try row.string(at: 1))
        }
        return (settings, try PayrollEndToEnd.storedJSON(c))
    }

    @Test("async: every chunk job commits with synchronous_commit off, planning with the server's on; sync: all on; the same payslips")
    func chunkCommitModes() throws {
        let async = try Self.monthEnd(.async)
        #expect(async.settings[PayrollJobKind.chunk] == ["off"])
        #expect(async.settings[PayrollJobKind.plan] == ["on"])
        let sync = try Self.monthEnd(.sync)
        #expect(sync.settings[PayrollJobKind.chunk] == ["on"])
        #expect(sync.settings[PayrollJobKind.plan] == ["on"])
        #expect(async.payslips.count == 18)
        #expect(async.payslips == sync.payslips)
    }

    @Test("the default is async, and `payrun worker --chunk-commit` takes exactly async and sync")
    func defaults() {
        #expect(RunChunkJobHandler().commit == .async)
        #expect(ChunkCommit(rawValue: "async") == .async && ChunkCommit(rawValue: "sync") == .sync)
        #expect(ChunkCommit(rawValue: "off") == nil)
        #expect(ChunkCommit.allCases.count == 2)
    }
}
