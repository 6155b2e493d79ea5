import Foundation
import JobQueue
import PayrollStore
import PostgresClient
import PostgresTestSupport

/// A fresh migrated database per test, with tenants 1…`tenants` and a scratch results table
/// `public.results (job_id, note)` standing in for a job's output.
enum QueueFixture {
    static func database(_ label: String, tenants: Int = 3) throws -> (TestDatabase, PostgresConnection) {
        let database = try TestDatabase.create("queue_" + label)
        let connection = try database.connect()
        try Migrator().migrate(connection)
        try connection.execute(
            "INSERT INTO payrun.tenants (id, name) SELECT n, 'Tenant ' || n FROM generate_series(1, $1::int) n",
            [.int(tenants)])
        try connection.execute("CREATE TABLE public.results (job_id bigint NOT NULL, note text)")
        return (database, connection)
    }

    static func job(_ kind: String = "test.echo", tenant: Int64 = 1, payload: String = "{}", dedup: String? = nil,
                    maxAttempts: Int = 5) -> NewJob {
        NewJob(kind: kind, tenantId: tenant, payload: payload, dedupKey: dedup, maxAttempts: maxAttempts)
    }

    static func state(_ id: Int64, on connection: PostgresConnection) throws -> String {
        try JobQueue.show(id: id, on: connection).state
    }

    static func count(_ sql: String, _ params: [PostgresValue] = [], on connection: PostgresConnection) throws -> Int64 {
        try connection.queryOne(sql, params)?.int64(at: 0) ?? -1
    }

    /// Moves every pending job's run_at to now (skips backoff without waiting).
    static func makeDue(on connection: PostgresConnection) throws {
        try connection.execute("UPDATE payrun.jobs SET run_at = now() - interval '1 second' WHERE state = 'pending'")
    }

    /// Makes every running job's lease expire now (instead of waiting for it).
    static func expireLeases(on connection: PostgresConnection) throws {
        try connection.execute("UPDATE payrun.jobs SET leased_until = clock_timestamp() - interval '1 millisecond' WHERE state = 'running'")
    }
}
