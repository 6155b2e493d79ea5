import PostgresClient

/// Wake-up: an idle claimer LISTENs and sleeps until a notification or its poll interval,
/// whichever comes first (polling covers jobs inserted without a notification and becoming due).
extension JobQueue {
    /// `LISTEN payrun_jobs` on this connection (replayed by `PostgresConnection.reconnect()`).
    public static func listen(on connection: PostgresConnection) throws {
        try connection.listen(notificationChannel)
    }

    /// Waits up to `timeout` for a notification on `notificationChannel`, then drains any others
    /// already received. Returns true if woken by a notification, false on timeout.
    public static func waitForWakeUp(on connection: PostgresConnection, timeout: Duration) throws -> Bool {
        guard try connection.waitForNotification(timeout: timeout) != nil else { return false }
        while try connection.pendingNotification() != nil {}
        return true
    }
}

extension JobQueue {
    /// Session settings for a connection that claims: `jit = off`. The claim's estimated cost
    /// grows with the batch size and passes `jit_above_cost` around 100 jobs per claim, and JIT
    /// compilation then adds 100–200 ms to a statement that runs in ~10 ms. Session settings are
    /// lost on reconnect: call again after `reconnect()`.
    public static func prepareSession(on connection: PostgresConnection) throws {
        try connection.execute("SET jit = off")
    }
}
