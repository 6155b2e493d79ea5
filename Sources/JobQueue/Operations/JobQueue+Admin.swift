import PostgresClient

/// Operator actions: cancel, retry, list, show, depth.
extension JobQueue {
    static let lockStateSQL = "SELECT state, dedup_key FROM payrun.jobs WHERE id = $1 FOR UPDATE"

    /// Cancels a pending or running job. A running job's lease is revoked: its worker can no
    /// longer complete it or commit its results. Returns the state it had.
    static let cancelSQL = """
        UPDATE payrun.jobs
           SET state = 'cancelled', finished_at = clock_timestamp(), lease_token = NULL, leased_until = NULL,
               errors = errors || jsonb_build_array(jsonb_build_object('attempt', attempts, 'at', clock_timestamp(),
                        'message', 'cancelled' || coalesce(': ' || $2::text, ''), 'retryable', false))
         WHERE id = $1 AND state IN ('pending', 'running')
        """

    /// Cancels job `id` (pending or running; `reason` is recorded in its errors). Returns the
    /// state it had. Throws `notFound`, or `invalidState` for a finished job.
    @discardableResult
    public static func cancel(id: Int64, reason: String? = nil, on connection: PostgresConnection) throws -> String {
        try inTransaction(connection) { connection in
            guard let row = try connection.queryOne(lockStateSQL, [.int(id)]) else { throw JobQueueError.notFound(id) }
            let state = try row.string(at: 0)
            guard state == "pending" || state == "running" else {
                throw JobQueueError.invalidState(jobId: id, state: state, operation: "cancel")
            }
            try connection.execute(cancelSQL, [.int(id), .text(reason)])
            return state
        }
    }

    /// A failed or cancelled job becomes pending again with a fresh attempt budget (its errors
    /// are kept); a pending one becomes due now (skipping its backoff).
    static let retrySQL = """
        UPDATE payrun.jobs
           SET state = 'pending', attempts = CASE WHEN state = 'pending' THEN attempts ELSE 0 END,
               run_at = least(run_at, clock_timestamp()), finished_at = NULL, lease_token = NULL, leased_until = NULL
         WHERE id = $1 AND state IN ('failed', 'cancelled', 'pending')
        """
    static let pendingWithKeySQL = "SELECT id FROM payrun.jobs WHERE state = 'pending' AND dedup_key = $1 AND id <> $2"

    /// Retries job `id` now: failed/cancelled → pending with a fresh attempt budget; pending →
    /// due now. Throws `notFound`, `invalidState` (running or succeeded), or `duplicatePending`
    /// when another job with its dedup key is pending (that one will do the work).
    public static func retry(id: Int64, on connection: PostgresConnection) throws {
        try inTransaction(connection) { connection in
            guard let row = try connection.queryOne(lockStateSQL, [.int(id)]) else { throw JobQueueError.notFound(id) }
            let state = try row.string(at: 0)
            guard state == "failed" || state == "cancelled" || state == "pending" else {
                throw JobQueueError.invalidState(jobId: id, state: state, operation: "retry")
            }
            if state != "pending", let key = try row.decode(String?.self, at: 1),
               let other = try connection.queryOne(pendingWithKeySQL, [.text(key), .int(id)]) {
                throw JobQueueError.duplicatePending(jobId: id, pendingJobId: try other.int64(at: 0))
            }
            try connection.execute(retrySQL, [.int(id)])
            try connection.notify(notificationChannel, payload: "retry")
        }
    }

    static let recordColumns = """
        id, kind, coalesce(tenant_id, 0), state, priority, attempts, max_attempts, run_at, created_at, started_at,
        finished_at, leased_by, leased_until, heartbeat_at, dedup_key, payload::text, errors::text,
        jsonb_array_length(errors), errors -> -1 ->> 'message'
        """
    static let showSQL = "SELECT \(recordColumns) FROM payrun.jobs WHERE id = $1"

    /// One job with its payload and every attempt's error. Throws `notFound`.
    public static func show(id: Int64, on connection: PostgresConnection) throws -> JobRecord {
        guard let row = try connection.queryOne(showSQL, [.int(id)]) else { throw JobQueueError.notFound(id) }
        return try record(row)
    }

    static let listSQL = """
        SELECT \(recordColumns) FROM payrun.jobs
         WHERE ($1::text IS NULL OR state = $1) AND ($2::text IS NULL OR kind = $2)
           AND ($3::bigint IS NULL OR coalesce(tenant_id, 0) = $3)
         ORDER BY id DESC
         LIMIT $4
        """

    /// Jobs matching `filter`, newest first.
    public static func list(_ filter: JobFilter = JobFilter(), on connection: PostgresConnection) throws -> [JobRecord] {
        if let state = filter.state, !states.contains(state) {
            throw JobQueueError.invalidArgument("unknown state '\(state)' (one of \(states.joined(separator: ", ")))")
        }
        return try connection.query(listSQL, [
            .text(filter.state), .text(filter.kind), .int(filter.tenantId), .int(max(0, filter.limit)),
        ]).map(record)
    }

    /// Counts unfinished jobs; each count reads one partial index.
    static let depthSQL = """
        SELECT (SELECT count(*) FROM payrun.jobs WHERE state = 'pending' AND run_at <= now()),
               (SELECT count(*) FROM payrun.jobs WHERE state = 'pending' AND run_at > now()),
               (SELECT count(*) FROM payrun.jobs WHERE state = 'running'),
               (SELECT count(*) FROM payrun.jobs WHERE state = 'running' AND leased_until <= clock_timestamp())
        """

    /// Pending (due / scheduled), running and expired-lease counts.
    public static func depth(on connection: PostgresConnection) throws -> QueueDepth {
        // Prepared: read every few seconds by the maintenance thread; planned once per connection.
        guard let row = try connection.queryOnePrepared(depthSQL) else { return QueueDepth(due: 0, scheduled: 0, running: 0, expired: 0) }
        return QueueDepth(due: try row.int64(at: 0), scheduled: try row.int64(at: 1),
                          running: try row.int64(at: 2), expired: try row.int64(at: 3))
    }

    static func record(_ row: PostgresRow) throws -> JobRecord {
        JobRecord(
            id: try row.int64(at: 0), kind: try row.string(at: 1), tenantId: try row.int64(at: 2),
            state: try row.string(at: 3), priority: Int16(try row.int(at: 4)), attempts: try row.int(at: 5),
            maxAttempts: try row.int(at: 6), runAt: try row.timestamptz(at: 7), createdAt: try row.timestamptz(at: 8),
            startedAt: try row.decode(PostgresTimestamp?.self, at: 9), finishedAt: try row.decode(PostgresTimestamp?.self, at: 10),
            leasedBy: try row.decode(String?.self, at: 11), leasedUntil: try row.decode(PostgresTimestamp?.self, at: 12),
            heartbeatAt: try row.decode(PostgresTimestamp?.self, at: 13), dedupKey: try row.decode(String?.self, at: 14),
            payload: try row.string(at: 15), errors: try row.string(at: 16), errorCount: try row.int(at: 17),
            lastError: try row.decode(String?.self, at: 18))
    }

    /// Runs `body` in the caller's open transaction, or in a new one.
    static func inTransaction<T>(_ connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
        if connection.isInTransaction { return try body(connection) }
        return try connection.transaction(body)
    }
}
