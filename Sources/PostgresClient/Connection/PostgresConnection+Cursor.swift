extension PostgresConnection {
    /// Largest batch `forEachRow` fetches at once.
    public static let cursorBatchRowsMax = 1_000_000

    /// Runs a query through a server-side cursor and calls `body` for every row, fetching
    /// `batchSize` rows at a time, so memory is bounded by one batch however large the result.
    /// Takes bind parameters like `query`.
    ///
    /// Outside a transaction it opens one (READ COMMITTED) for the cursor's lifetime and
    /// commits at the end (or rolls back if `body` throws). Inside your transaction it uses it.
    /// `body` may run other statements on this connection between rows.
    public func forEachRow(
        _ sql: String, _ params: [PostgresValue] = [], batchSize: Int = 10_000,
        _ body: (PostgresRow) throws -> Void
    ) throws {
        guard (1...Self.cursorBatchRowsMax).contains(batchSize) else {
            throw PostgresError.invalidUsage("batchSize must be 1...\(Self.cursorBatchRowsMax), got \(batchSize)")
        }
        if isInTransaction {
            try iterateCursor(sql, params, batchSize: batchSize, body)
        } else {
            try transaction { connection in
                try connection.iterateCursor(sql, params, batchSize: batchSize, body)
            }
        }
    }

    private func iterateCursor(
        _ sql: String, _ params: [PostgresValue], batchSize: Int, _ body: (PostgresRow) throws -> Void
    ) throws {
        cursorSerial += 1
        let cursor = "payrun_cursor_\(cursorSerial)"
        var statement = Substring(sql)
        while let last = statement.last, last == ";" || last == " " || last == "\n" || last == "\t" {
            statement = statement.dropLast()
        }
        try execute("DECLARE \(cursor) NO SCROLL CURSOR FOR \(statement)", params)
        do {
            while true {
                let batch = try execute("FETCH FORWARD \(batchSize) FROM \(cursor)")
                for row in batch { try body(row) }
                if batch.rowCount < batchSize { break }
            }
        } catch {
            _ = try? execute("CLOSE \(cursor)")
            throw error
        }
        try execute("CLOSE \(cursor)")
    }
}
