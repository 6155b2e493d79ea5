import PostgresClient

extension JobQueue {
    /// Inserts the jobs (or folds each into the pending job with the same dedup key) and notifies
    /// `notificationChannel` once per kind, delivered when the caller's transaction commits.
    /// Outcomes are in input order. Dedup keys within one batch must be distinct.
    static let enqueueSQL = """
        WITH input AS (
            SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::bigint[],
                                 $7::bigint[], $8::bigint[])
                 WITH ORDINALITY AS t(kind, tenant_id, payload, dedup_key, priority, max_attempts,
                                      run_after_seconds, run_at_unix_us, n)
        ), written AS (
            INSERT INTO payrun.jobs AS j (kind, tenant_id, payload, priority, max_attempts, run_at, dedup_key)
            SELECT kind, nullif(tenant_id, 0), payload::jsonb, priority::smallint, max_attempts::integer,
                   CASE WHEN run_at_unix_us = -9223372036854775808
                        THEN now() + make_interval(secs => run_after_seconds)
                        ELSE timestamptz 'epoch' + run_at_unix_us * interval '1 microsecond' END,
                   nullif(dedup_key, '')
              FROM input ORDER BY n
            ON CONFLICT (dedup_key) WHERE state = 'pending' AND dedup_key IS NOT NULL
            DO UPDATE SET run_at = least(j.run_at, EXCLUDED.run_at)
            RETURNING j.id, (j.xmax::text = '0') AS inserted
        )
        SELECT w.id, w.inserted,
               (SELECT count(pg_notify('payrun_jobs', k.kind)) FROM (SELECT DISTINCT kind FROM input) k) AS notified
          FROM written w
        """

    /// Enqueues one job in the caller's transaction (or on its own if none is open).
    @discardableResult
    public static func enqueue(_ job: NewJob, on connection: PostgresConnection) throws -> EnqueueOutcome {
        let outcomes = try enqueue([job], on: connection)
        guard let outcome = outcomes.first else {
            throw JobQueueError.invalidArgument("enqueue returned no row")
        }
        return outcome
    }

    /// Enqueues several jobs with one statement (one round trip), in the caller's transaction.
    @discardableResult
    public static func enqueue(_ jobs: [NewJob], on connection: PostgresConnection) throws -> [EnqueueOutcome] {
        if jobs.isEmpty { return [] }
        var seenKeys = Set<String>()
        for job in jobs {
            guard job.maxAttempts >= 1 && job.maxAttempts <= 100 else {
                throw JobQueueError.invalidArgument("maxAttempts must be 1...100, got \(job.maxAttempts)")
            }
            guard job.priority >= 0 && job.priority <= 1000 else {
                throw JobQueueError.invalidArgument("priority must be 0...1000, got \(job.priority)")
            }
            guard job.tenantId >= 0 else {
                throw JobQueueError.invalidArgument("tenantId must be positive (or NewJob.noTenant), got \(job.tenantId)")
            }
            if let key = job.dedupKey {
                guard !key.isEmpty else { throw JobQueueError.invalidArgument("dedupKey must not be empty (use nil)") }
                guard seenKeys.insert(key).inserted else {
                    throw JobQueueError.invalidArgument("dedup key '\(key)' appears twice in one enqueue batch")
                }
            }
        }
        let rows = try connection.query(enqueueSQL, [
            .textArray(jobs.map(\.kind)),
            .int64Array(jobs.map(\.tenantId)),
            .textArray(jobs.map(\.payload)),
            .textArray(jobs.map { $0.dedupKey ?? "" }),
            .int64Array(jobs.map { Int64($0.priority) }),
            .int64Array(jobs.map { Int64($0.maxAttempts) }),
            .int64Array(jobs.map { Int64($0.runAfterSeconds) }),
            .int64Array(jobs.map { $0.runAt?.unixMicroseconds ?? Int64.min }),
        ])
        guard rows.count == jobs.count else {
            throw JobQueueError.invalidArgument("enqueue of \(jobs.count) jobs returned \(rows.count) rows")
        }
        return try rows.map { row in
            let id = try row.int64(at: 0)
            return try row.bool(at: 1) ? .inserted(id) : .deduplicated(id)
        }
    }
}
