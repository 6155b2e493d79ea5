import CLibPQ

/// Isolation level of a transaction.
public enum PostgresIsolationLevel: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

extension PostgresConnection {
    /// Runs `body` inside `BEGIN … COMMIT`. If `body` throws, the transaction is rolled back
    /// and the error rethrown; if `COMMIT` fails (e.g. a serialization failure), its
    /// `PostgresError` is thrown. Nested calls throw `.invalidUsage` (no implicit savepoints).
    ///
    /// The body may throw any error; errors from the database are `PostgresError`.
    public func transaction<T>(
        isolation: PostgresIsolationLevel = .readCommitted,
        readOnly: Bool = false,
        _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        guard !isInTransaction else {
            throw PostgresError.invalidUsage("transaction() called while a transaction is already open")
        }
        try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)\(readOnly ? " READ ONLY" : "")")
        let value: T
        do {
            value = try body(self)
        } catch {
            rollbackQuietly()
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            rollbackQuietly()
            throw error
        }
        return value
    }

    /// Rolls back if a transaction is open; errors (e.g. a lost connection) are ignored because
    /// the server discards an unfinished transaction anyway.
    func rollbackQuietly() {
        guard isOpen, isInTransaction else { return }
        _ = try? execute("ROLLBACK")
    }
}
