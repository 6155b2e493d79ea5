import CLibPQ

extension PostgresConnection {
    /// Runs one statement like `execute`, but parsed and planned once per connection: the first
    /// call with a given SQL text and parameter types prepares it (`PQprepare`, under a generated
    /// name), later calls only bind and run it (`PQexecPrepared`). For statements a hot path sends
    /// over and over with different values; not for SQL built with literals (each text would be
    /// prepared and kept for the connection's lifetime). The cache is per connection and dropped
    /// by `reconnect()` and `close()`. A failed prepare is not cached, so the next call retries it.
    @discardableResult
    public func executePrepared(_ sql: String, _ params: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let handle = try requireHandle()
        let encoded = EncodedParameters(params)
        // The parameter types are part of the key: a prepared statement binds with the types it
        // was prepared with, and a value is encoded for its own type (binary int4 ≠ int8).
        let key = encoded.types.map(String.init).joined(separator: ",") + "\u{0}" + sql
        let name: String
        if let known = preparedStatementNames[key] {
            name = known
        } else {
            name = "payrun_stmt_\(preparedStatementNames.count + 1)"
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
