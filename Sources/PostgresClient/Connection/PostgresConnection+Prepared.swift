import CLibPQ

extension PostgresConnection {
    /// Runs one statement like `execute`, but parsed and planned once per connection: the first
    /// call with a given SQL text and parameter types prepares it (`PQprepare`, under a generated
    /// name), later calls only bind and run it (`PQexecPrepared`). For statements a hot path sends
    /// over and over with different values; not for SQL built with literals (each text would be
    /// prepared and kept for the connection's lifetime). The cache is per connection and dropped
    /// by `reconnect()` and `close()`. A failed prepare is not cached, so the next call retries it.
    ///
    /// If the session lost its prepared statements without this connection knowing (`DEALLOCATE
    /// ALL`, `DISCARD ALL`; server error 26000), the cache is dropped and, outside a transaction,
    /// the statement is prepared again and run once more; inside one the error is thrown (the
    /// transaction is aborted) and the next call prepares it again.
    @discardableResult
    public func executePrepared(_ sql: String, _ params: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let handle = try requireHandle()
        let encoded = EncodedParameters(params)
        // The parameter types are part of the key: a prepared statement binds with the types it
        // was prepared with, and a value is encoded for its own type (binary int4 ≠ int8).
        let key = encoded.types.map(String.init).joined(separator: ",") + "\u{0}" + sql
        let cached = preparedStatementNames[key] != nil
        do {
            return try runPrepared(sql, key: key, encoded: encoded, handle: handle)
        } catch let error where error.sqlState == "26000" && cached {
            // Names are never reused (`preparedStatementSerial`), so a statement the server may
            // still hold under an old name cannot collide with a new one.
            preparedStatementNames = [:]
            guard PQtransactionStatus(handle) == PQTRANS_IDLE else { throw error }
            return try runPrepared(sql, key: key, encoded: encoded, handle: handle)
        }
    }

    /// Prepares `sql` under a new name unless `key` is cached, then runs it.
    private func runPrepared(_ sql: String, key: String, encoded: EncodedParameters, handle: OpaquePointer) throws(PostgresError) -> PostgresResult {
        let name: String
        if let known = preparedStatementNames[key] {
            name = known
        } else {
            preparedStatementSerial += 1
            name = "payrun_stmt_\(preparedStatementSerial)"
            let prepared = encoded.types.withUnsafeBufferPointer { types in
                PQprepare(handle, name, sql, Int32(types.count), types.baseAddress)
            }
            _ = try checked(prepared, handle: handle)
            preparedStatementNames[key] = name
        }
        let raw = try encoded.withCArrays { count, _, values, lengths, formats in
            PQexecPrepared(handle, name, count, values, lengths, formats, 0)
        }
        return try checked(raw, handle: handle)
    }

    /// `executePrepared`, returning the rows.
    public func queryPrepared(_ sql: String, _ params: [PostgresValue] = []) throws(PostgresError) -> [PostgresRow] {
        Array(try executePrepared(sql, params))
    }

    /// `executePrepared` for at most one row; nil when none. Throws `.invalidUsage` if several.
    public func queryOnePrepared(_ sql: String, _ params: [PostgresValue] = []) throws(PostgresError) -> PostgresRow? {
        let result = try executePrepared(sql, params)
        guard result.rowCount <= 1 else {
            throw .invalidUsage("expected at most one row, got \(result.rowCount)")
        }
        return result.first
    }

    /// How many statements this connection has prepared (for tests and diagnostics).
    public var preparedStatementCount: Int { preparedStatementNames.count }
}
