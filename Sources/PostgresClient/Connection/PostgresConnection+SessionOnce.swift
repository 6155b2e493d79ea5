import CLibPQ

extension PostgresConnection {
    /// Runs `sql` (one statement, no parameters) once per server session of this connection:
    /// the first call with `key` runs it, later calls return at once — until the session changes
    /// (`reconnect()`, or any new backend process behind the connection), when the next call runs
    /// it again. For statements whose effect lasts as long as the backend process (e.g.
    /// `PayslipWriter.reserveCaptureMemorySQL`), not for transaction or `SET` state. Returns
    /// whether it ran. Inside a transaction, a failure aborts the transaction as any statement's would.
    @discardableResult
    public func executeOncePerSession(key: String, _ sql: String) throws(PostgresError) -> Bool {
        let backend = backendPID
        if backend != 0, sessionStatementBackends[key] == backend { return false }
        try execute(sql)
        sessionStatementBackends[key] = backend
        return true
    }
}
