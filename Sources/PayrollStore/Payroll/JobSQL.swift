import PostgresClient

/// Enqueues jobs in the caller's transaction with plain SQL (PayrollStore does not depend on
/// JobQueue; the row shape is `payrun.jobs` of 0001, as `enqueue_recalculation` writes it).
/// Deduplicated among pending jobs by `dedupKey`; wakes listening workers at commit.
enum JobSQL {
    /// Priority of planning jobs and of chunk jobs (lower runs first; recalculations use 50).
    static let planPriority: Int16 = 80
    static let chunkPriority: Int16 = 100

    @discardableResult
    static func enqueue(kind: String, tenantId: Int64, payload: String, dedupKey: String, priority: Int16,
                        on connection: PostgresConnection) throws -> Int64 {
        guard let row = try connection.queryOne("""
            INSERT INTO payrun.jobs AS j (kind, tenant_id, payload, priority, dedup_key)
            VALUES ($1, $2, $3::jsonb, $4, $5)
            ON CONFLICT (dedup_key) WHERE state = 'pending' AND dedup_key IS NOT NULL
            DO UPDATE SET run_at = least(j.run_at, EXCLUDED.run_at)
            RETURNING j.id
            """, [.text(kind), .int(tenantId), .text(payload), .int16(priority), .text(dedupKey)])
        else { throw PayrollStoreError(.invalidState, "enqueue of \(kind) returned no id") }
        try connection.execute("SELECT pg_notify('payrun_jobs', $1)", [.text(kind)])
        return try row.int64(at: 0)
    }

    /// `enqueue` for many jobs of one kind and tenant with one statement, which also sends the
    /// notification (PostgreSQL delivers a transaction's notifications at commit, identical ones
    /// once). `jobs`: payload and dedup key per job; the keys must differ from each other (one
    /// statement cannot update a pending row twice). Returns the jobs' ids, in no particular order.
    @discardableResult
    static func enqueueMany(kind: String, tenantId: Int64, jobs: [(payload: String, dedupKey: String)], priority: Int16,
                            on connection: PostgresConnection) throws -> [Int64] {
        if jobs.isEmpty { return [] }
        precondition(Set(jobs.map(\.dedupKey)).count == jobs.count, "enqueueMany: dedup keys must differ")
        let rows = try connection.query("""
            WITH queued AS (
                INSERT INTO payrun.jobs AS j (kind, tenant_id, payload, priority, dedup_key)
                SELECT $1, $2, u.payload::jsonb, $3, u.dedup_key
                  FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS u(payload, dedup_key, n)
                 ORDER BY u.n
                ON CONFLICT (dedup_key) WHERE state = 'pending' AND dedup_key IS NOT NULL
                DO UPDATE SET run_at = least(j.run_at, EXCLUDED.run_at)
                RETURNING j.id)
            SELECT q.id FROM queued q CROSS JOIN (SELECT pg_notify('payrun_jobs', $1)) AS n
            """, [.text(kind), .int(tenantId), .int16(priority), .textArray(jobs.map(\.payload)), .textArray(jobs.map(\.dedupKey))])
        guard rows.count == jobs.count else {
            throw PayrollStoreError(.invalidState, "enqueue of \(jobs.count) \(kind) jobs returned \(rows.count) ids")
        }
        return try rows.map { try $0.int64(at: 0) }
    }
}
