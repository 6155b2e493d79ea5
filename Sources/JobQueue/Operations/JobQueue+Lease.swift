import PostgresClient

/// Fencing: every statement here acts only on a job that is `running`, still carries the
/// caller's lease token, and whose lease has not expired (`clock_timestamp()`, not `now()`,
/// which is the start of a possibly long transaction). A worker that was paused, partitioned or
/// slow past its lease therefore changes nothing, even before another worker takes the job.
extension JobQueue {
    /// Extends the leases of jobs this worker still holds; returns the ids it no longer holds.
    static let heartbeatSQL = """
        UPDATE payrun.jobs j
           SET leased_until = clock_timestamp() + make_interval(secs => $3), heartbeat_at = clock_timestamp()
          FROM unnest($1::bigint[], $2::uuid[]) AS h(id, token)
         WHERE j.id = h.id AND j.lease_token = h.token AND j.state = 'running' AND j.leased_until > clock_timestamp()
        RETURNING j.id
        """

    /// Extends the leases of `jobs` by `leaseSeconds` from now. Returns the ids whose lease was
    /// lost: their handler must stop, nothing it writes can commit.
    public static func heartbeat(_ jobs: [ClaimedJob], on connection: PostgresConnection, leaseSeconds: Int) throws -> Set<Int64> {
        if jobs.isEmpty { return [] }
        let rows = try connection.query(heartbeatSQL, [
            .int64Array(jobs.map(\.id)), .textArray(jobs.map(\.leaseToken)), .int(leaseSeconds),
        ])
        let kept = Set(try rows.map { try $0.int64(at: 0) })
        return Set(jobs.map(\.id)).subtracting(kept)
    }

    /// Marks jobs succeeded if this worker still holds their leases.
    static let completeSQL = """
        UPDATE payrun.jobs j
           SET state = 'succeeded', finished_at = clock_timestamp(), lease_token = NULL, leased_until = NULL
          FROM unnest($1::bigint[], $2::uuid[]) AS c(id, token)
         WHERE j.id = c.id AND j.lease_token = c.token AND j.state = 'running' AND j.leased_until > clock_timestamp()
        RETURNING j.id
        """

    /// Completes the job, fenced by its lease token. Call it in the transaction that writes the
    /// job's results: if the lease was lost it throws `JobQueueError.leaseLost`, so the caller's
    /// transaction (results included) rolls back.
    public static func complete(_ job: ClaimedJob, on connection: PostgresConnection) throws {
        try complete([job], on: connection)
    }

    /// Completes several jobs with one statement; throws `leaseLost` (naming the first lost job)
    /// unless every one of them was still held — then the caller must roll back.
    public static func complete(_ jobs: [ClaimedJob], on connection: PostgresConnection) throws {
        if jobs.isEmpty { return }
        let rows = try connection.queryPrepared(completeSQL, [.int64Array(jobs.map(\.id)), .textArray(jobs.map(\.leaseToken))])
        if rows.count != jobs.count {
            let done = Set(try rows.map { try $0.int64(at: 0) })
            let lost = jobs.map(\.id).filter { !done.contains($0) }.min() ?? jobs[0].id
            throw JobQueueError.leaseLost(jobId: lost)
        }
    }

    /// Records a failed attempt. Retryable with attempts left: pending again after the backoff.
    /// Otherwise `failed`. If a newer job with the same dedup key is already pending, that one
    /// will do the work: this one is `cancelled` instead of going back to pending (the unique
    /// index allows one pending job per key). The error is appended to `errors` either way.
    static let failSQL = """
        WITH target AS (
            SELECT j.id, (NOT $3::boolean OR j.attempts >= j.max_attempts) AS final,
                   (SELECT p.id FROM payrun.jobs p WHERE p.state = 'pending' AND p.dedup_key = j.dedup_key) AS superseded_by
              FROM payrun.jobs j
             WHERE j.id = $1 AND j.lease_token = $2::uuid AND j.state = 'running' AND j.leased_until > clock_timestamp()
        )
        UPDATE payrun.jobs j
           SET state = CASE WHEN t.final THEN 'failed' WHEN t.superseded_by IS NOT NULL THEN 'cancelled' ELSE 'pending' END,
               run_at = CASE WHEN t.final OR t.superseded_by IS NOT NULL THEN j.run_at
                             ELSE clock_timestamp() + make_interval(secs =>
                                  least($6::float8, $5::float8 * power(2, least(j.attempts - 1, 40)))
                                  * (0.5 + random() / 2) / 1000) END,
               errors = j.errors || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
                            'attempt', j.attempts, 'at', clock_timestamp(), 'worker', j.leased_by,
                            'message', $4::text, 'retryable', $3::boolean, 'supersededBy', t.superseded_by))),
               lease_token = NULL, leased_until = NULL,
               finished_at = CASE WHEN t.final OR t.superseded_by IS NOT NULL THEN clock_timestamp() END
          FROM target t
         WHERE j.id = t.id AND j.lease_token = $2::uuid AND j.state = 'running'
        RETURNING j.state, t.superseded_by
        """

    /// Records that this attempt failed with `error`, fenced by the lease token (throws
    /// `leaseLost` if the job is no longer held). Run it outside the (rolled back) transaction
    /// that attempted the work.
    @discardableResult
    public static func fail(
        _ job: ClaimedJob, error: String, retryable: Bool, on connection: PostgresConnection,
        backoff: RetryBackoff = .standard
    ) throws -> FailOutcome {
        let message = error.count > 4000 ? String(error.prefix(4000)) + "…" : error
        guard let row = try connection.queryOne(failSQL, [
            .int(job.id), .text(job.leaseToken), .bool(retryable), .text(message),
            .int(backoff.baseMilliseconds), .int(backoff.capMilliseconds),
        ]) else {
            throw JobQueueError.leaseLost(jobId: job.id)
        }
        let state = try row.string(at: 0)
        if let supersededBy = try row.decode(Int64?.self, at: 1) { return .superseded(by: supersededBy) }
        return state == "failed" ? .failed : .retryScheduled
    }

    /// Gives a job back without counting the attempt (shutdown): pending again at once, keeping
    /// its place in line (`run_at` unchanged). Superseded by a pending same-key job: cancelled.
    static let releaseSQL = """
        WITH target AS (
            SELECT j.id, (SELECT p.id FROM payrun.jobs p WHERE p.state = 'pending' AND p.dedup_key = j.dedup_key) AS superseded_by
              FROM payrun.jobs j
             WHERE j.id = $1 AND j.lease_token = $2::uuid AND j.state = 'running'
        )
        UPDATE payrun.jobs j
           SET state = CASE WHEN t.superseded_by IS NULL THEN 'pending' ELSE 'cancelled' END,
               attempts = j.attempts - 1, lease_token = NULL, leased_until = NULL,
               errors = CASE WHEN t.superseded_by IS NULL THEN j.errors
                             ELSE j.errors || jsonb_build_array(jsonb_build_object('attempt', j.attempts,
                                  'at', clock_timestamp(), 'worker', j.leased_by, 'supersededBy', t.superseded_by,
                                  'message', 'released at shutdown; a newer job with the same dedup key is pending')) END,
               finished_at = CASE WHEN t.superseded_by IS NULL THEN NULL ELSE clock_timestamp() END
          FROM target t
         WHERE j.id = t.id AND j.lease_token = $2::uuid AND j.state = 'running'
        RETURNING j.id
        """

    /// Releases a held job (graceful shutdown): available again now, the attempt not counted.
    /// Returns false if the job was no longer held by this lease (nothing to release).
    @discardableResult
    public static func release(_ job: ClaimedJob, on connection: PostgresConnection) throws -> Bool {
        try connection.queryOne(releaseSQL, [.int(job.id), .text(job.leaseToken)]) != nil
    }
}
