import CLibPQ

/// An error from the server, from libpq, or from decoding a value, with the SQLSTATE when the
/// server sent one. Switch on `kind` to react (retry a serialization failure, reconnect after
/// a lost connection, report a unique violation as a conflict).
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarse enough to switch on.
    public enum Kind: Sendable, Hashable {
        /// 23505 — a unique index or primary key would hold a duplicate.
        case uniqueViolation
        /// 23503 — a foreign key points nowhere (or is still referenced).
        case foreignKeyViolation
        /// 23514 — a CHECK constraint failed.
        case checkViolation
        /// 23502 — NULL written into a NOT NULL column.
        case notNullViolation
        /// 23P01 — an exclusion constraint failed.
        case exclusionViolation
        /// 40001 — the transaction must be retried from its start.
        case serializationFailure
        /// 40P01 — this transaction was chosen as a deadlock victim; retry it.
        case deadlock
        /// 55P03 — `NOWAIT` / `lock_timeout` could not get a lock.
        case lockNotAvailable
        /// 57014 — statement timeout or cancel request.
        case queryCanceled
        /// 42501 — missing privilege, or a row-level-security check refused the row.
        case insufficientPrivilege
        /// The connection is gone: libpq reports it bad, SQLSTATE class 08, or the server is
        /// shutting down (57P01 admin shutdown, 57P02, 57P03). Reconnect, then retry.
        case connectionLost
        /// Connecting (or reconnecting) failed.
        case connectionFailed
        /// 42601 / 42xxx — the SQL text is wrong (syntax, unknown table or column, ...).
        case syntaxOrAccessRule
        /// 22xxx — bad data value (out of range, invalid text representation, ...).
        case dataException
        /// A column's value could not be decoded as the requested Swift type, or was NULL.
        case decoding
        /// The API was misused (nested transaction, bad channel name, ...). Nothing was sent.
        case invalidUsage
        /// Binary COPY data did not have the expected layout.
        case copyFormat
        /// Any other server or libpq error; look at `sqlState`.
        case other
    }

    public var kind: Kind
    /// The five-character SQLSTATE sent by the server, if any.
    public var sqlState: String?
    /// Primary message (server's or ours).
    public var message: String
    public var detail: String?
    public var hint: String?
    /// Name of the violated constraint, when the server reports one.
    public var constraint: String?
    /// Table the error is about, when the server reports one.
    public var table: String?
    /// Column the error is about, when the server reports one.
    public var column: String?

    public init(
        kind: Kind, message: String, sqlState: String? = nil, detail: String? = nil,
        hint: String? = nil, constraint: String? = nil, table: String? = nil, column: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.table = table
        self.column = column
    }

    /// Maps a SQLSTATE to a kind.
    public static func kind(forSQLState state: String) -> Kind {
        switch state {
        case "23505": return .uniqueViolation
        case "23503": return .foreignKeyViolation
        case "23514": return .checkViolation
        case "23502": return .notNullViolation
        case "23P01": return .exclusionViolation
        case "40001": return .serializationFailure
        case "40P01": return .deadlock
        case "55P03": return .lockNotAvailable
        case "57014": return .queryCanceled
        case "42501": return .insufficientPrivilege
        case "57P01", "57P02", "57P03": return .connectionLost
        default:
            if state.hasPrefix("08") { return .connectionLost }
            if state.hasPrefix("42") { return .syntaxOrAccessRule }
            if state.hasPrefix("22") { return .dataException }
            return .other
        }
    }

    public var description: String {
        var text = "PostgresError.\(kind)"
        if let sqlState { text += " [\(sqlState)]" }
        text += ": \(message)"
        if let detail { text += " — detail: \(detail)" }
        if let hint { text += " — hint: \(hint)" }
        if let constraint { text += " — constraint: \(constraint)" }
        return text
    }

    /// True when the same work may succeed if simply run again (after reconnecting for
    /// `.connectionLost`).
    public var isTransient: Bool {
        switch kind {
        case .serializationFailure, .deadlock, .connectionLost, .connectionFailed, .lockNotAvailable:
            return true
        default:
            return false
        }
    }
}

extension PostgresError {
    @usableFromInline
    static func decoding(_ message: String) -> PostgresError {
        PostgresError(kind: .decoding, message: message)
    }

    static func invalidUsage(_ message: String) -> PostgresError {
        PostgresError(kind: .invalidUsage, message: message)
    }

    @usableFromInline
    static func copyFormat(_ message: String) -> PostgresError {
        PostgresError(kind: .copyFormat, message: message)
    }

    /// Builds the error for a failed result; when `result` is nil or carries no SQLSTATE, falls
    /// back to the connection's message and status.
    static func from(result: OpaquePointer?, connection: OpaquePointer?) -> PostgresError {
        func field(_ code: Int32) -> String? {
            guard let result, let pointer = PQresultErrorField(result, code) else { return nil }
            return String(cString: pointer)
        }
        let connectionBad = connection.map { PQstatus($0) == CONNECTION_BAD } ?? true
        if let state = field(payrun_pg_diag_sqlstate()) {
            var kind = PostgresError.kind(forSQLState: state)
            if connectionBad { kind = .connectionLost }
            return PostgresError(
                kind: kind,
                message: field(payrun_pg_diag_message()) ?? "(no message)",
                sqlState: state,
                detail: field(payrun_pg_diag_detail()),
                hint: field(payrun_pg_diag_hint()),
                constraint: field(payrun_pg_diag_constraint()),
                table: field(payrun_pg_diag_table()),
                column: field(payrun_pg_diag_column())
            )
        }
        var message = ""
        if let result, let pointer = PQresultErrorMessage(result) { message = String(cString: pointer) }
        if message.isEmpty, let connection, let pointer = PQerrorMessage(connection) {
            message = String(cString: pointer)
        }
        message = message.trimmingTrailingNewlines()
        if message.isEmpty { message = "unknown libpq error" }
        return PostgresError(kind: connectionBad ? .connectionLost : .other, message: message)
    }

    /// Error for the connection itself (connect failure, send failure).
    static func fromConnection(_ connection: OpaquePointer?, kind: Kind) -> PostgresError {
        var message = "cannot allocate a libpq connection"
        if let connection, let pointer = PQerrorMessage(connection) {
            message = String(cString: pointer).trimmingTrailingNewlines()
        }
        return PostgresError(kind: kind, message: message)
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == " " { text = text.dropLast() }
        return String(text)
    }
}
