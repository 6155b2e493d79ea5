import PostgresClient

extension JobQueue {
    /// Running jobs whose lease expired (the worker died, hung or was cut off) are given back:
    /// pending after the backoff, or `failed` if that was the last attempt, or `cancelled` if a
    /// newer same-key job is pending. The attempt counts and its error says the lease expired.
    /// Their old token is cleared, so the old worker can no longer complete or fail them.
    static let rescueExpiredSQL = """
        WITH expired AS (
            SELECT j.id, j.attempts >= j.max_attempts AS final,
                   (SELECT p.id FROM payrun.jobs p WHERE p.state = 'pending' AND p.dedup_key = j.dedup_key) AS superseded_by
              FROM payrun.jobs j
             WHERE j.state = 'running' AND j.leased_until <= clock_timestamp()
             ORDER BY j.leased_until
             LIMIT $1
               FOR UPDATE OF j SKIP LOCKED
        )
        UPDATE payrun.jobs j
           SET state = CASE WHEN e.final THEN 'failed' WHEN e.superseded_by IS NOT NULL THEN 'cancelled' ELSE 'pending' END,
               run_at = CASE WHEN e.final OR e.superseded_by IS NOT NULL THEN j.run_at
                             ELSE clock_timestamp() + make_interval(secs =>
                                  least($3::float8, $2::float8 * power(2, least(j.attempts - 1, 40)))
                                  * (0.5 + random() / 2) / 1000) END,
               errors = j.errors || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
                            'attempt', j.attempts, 'at', clock_timestamp(), 'worker', j.leased_by,
                            'message', format('lease expired at %s: worker %s stopped heartbeating', j.leased_until, j.leased_by),
                            'retryable', true, 'supersededBy', e.superseded_by))),
               lease_token = NULL, leased_until = NULL,
               finished_at = CASE WHEN e.final OR e.superseded_by IS NOT NULL THEN clock_timestamp() END
          FROM expired e
         WHERE j.id = e.id
        RETURNING j.id
        """

    /// Rescues up to `limit` jobs whose lease expired; returns how many.
    @discardableResult
    public static func rescueExpired(
        on connection: PostgresConnection, limit: Int = 1000, backoff: RetryBackoff = .standard
    ) throws -> Int {
        // Prepared: the maintenance thread runs it every few seconds, and planning it (≈ 1 ms) cost
        // more than running it on a queue without expired leases.
        try connection.queryPrepared(rescueExpiredSQL, [
            .int(limit), .int(backoff.baseMilliseconds), .int(backoff.capMilliseconds),
        ]).count
    }
}
