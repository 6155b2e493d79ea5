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
