import CLibPQ

extension PostgresConnection {
    /// Runs one statement with bind parameters (`$1` ... `$n`) and returns its whole result.
    /// Multiple statements in `sql` are rejected by the server; use `executeScript` for that.
    @discardableResult
    public func execute(_ sql: String, _ params: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let handle = try requireHandle()
        let encoded = EncodedParameters(params)
        let raw = try encoded.withCArrays { count, types, values, lengths, formats in
            PQexecParams(handle, sql, count, types, values, lengths, formats, 0)
        }
        return try checked(raw, handle: handle)
    }

    /// Runs one statement and returns its rows.
    public func query(_ sql: String, _ params: [PostgresValue] = []) throws(PostgresError) -> [PostgresRow] {
        Array(try execute(sql, params))
    }

    /// Runs one statement expected to return at most one row; nil when it returned none.
    /// Throws `.invalidUsage` if it returned several.
    public func queryOne(_ sql: String, _ params: [PostgresValue] = []) throws(PostgresError) -> PostgresRow? {
        let result = try execute(sql, params)
        guard result.rowCount <= 1 else {
            throw .invalidUsage("expected at most one row, got \(result.rowCount)")
        }
        return result.first
    }

    /// Runs several `;`-separated statements without parameters (the simple query protocol),
    /// e.g. a migration file. Stops at the first error. Statements run in one implicit
    /// transaction unless the script itself contains `BEGIN`/`COMMIT`.
    public func executeScript(_ sql: String) throws(PostgresError) {
        let handle = try requireHandle()
        roundTrips += 1
        guard PQsendQuery(handle, sql) == 1 else {
            throw PostgresError.fromConnection(handle, kind: PQstatus(handle) == CONNECTION_BAD ? .connectionLost : .other)
        }
        var firstError: PostgresError?
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            switch status {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                break
            case PGRES_COPY_IN:
                _ = PQputCopyEnd(handle, "COPY is not supported in executeScript")
            default:
                if firstError == nil { firstError = PostgresError.from(result: result, connection: handle) }
            }
            PQclear(result)
        }
        if let firstError { throw firstError }
    }

    /// Wraps a result of `PQexecParams`/`PQexec`: success statuses pass, everything else
    /// becomes a `PostgresError`.
    func checked(_ raw: OpaquePointer?, handle: OpaquePointer) throws(PostgresError) -> PostgresResult {
        roundTrips += 1
        guard let raw else {
            throw PostgresError.from(result: nil, connection: handle)
        }
        let result = PostgresResult(handle: raw)
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return result
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            abandonCopy(handle)
            throw .invalidUsage("COPY must be run with copyIn/copyOut, not execute")
        default:
            throw PostgresError.from(result: raw, connection: handle)
        }
    }

    /// Leaves COPY mode after a COPY was started where none was expected, so the connection
    /// stays usable.
    func abandonCopy(_ handle: OpaquePointer) {
        _ = PQputCopyEnd(handle, "COPY not expected here")
        var buffer: UnsafeMutablePointer<CChar>?
        while PQgetCopyData(handle, &buffer, 0) > 0 {
            PQfreemem(buffer)
            buffer = nil
        }
        while let result = PQgetResult(handle) { PQclear(result) }
    }
}
