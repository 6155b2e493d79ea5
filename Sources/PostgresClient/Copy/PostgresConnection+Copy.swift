import CLibPQ

extension PostgresConnection {
    /// Default size of one `PQputCopyData` call.
    public static let copyFlushThresholdBytesDefault = 256 * 1024

    /// Runs `COPY … FROM STDIN (FORMAT binary)` and streams the rows `body` writes; returns the
    /// number of rows the server stored.
    ///
    /// ```swift
    /// try connection.copyIn("COPY shifts (id, minutes, note) FROM STDIN (FORMAT binary)") { writer in
    ///     for shift in shifts {
    ///         try writer.row { $0.int64(shift.id); $0.int32(shift.minutes); $0.text(shift.note) }
    ///     }
    /// }
    /// ```
    ///
    /// **COPY takes no bind parameters**: build `sql` only from constants and from integers
    /// your own code owns (ids, table suffixes), never from strings that come from outside.
    ///
    /// If `body` throws, the COPY is aborted (nothing is stored) and the error rethrown. If the
    /// server rejects the data (a constraint, a wrong column type), its `PostgresError` is
    /// thrown after the data is sent.
    @discardableResult
    public func copyIn(
        _ sql: String,
        flushThresholdBytes: Int = PostgresConnection.copyFlushThresholdBytesDefault,
        _ body: (BinaryCopyWriter) throws -> Void
    ) throws -> Int {
        let handle = try requireHandle()
        try startCopy(sql, handle: handle, expecting: PGRES_COPY_IN)
        let writer = BinaryCopyWriter(handle: handle, flushThresholdBytes: max(flushThresholdBytes, 1024))
        do {
            try body(writer)
            try writer.finish()
        } catch {
            _ = PQputCopyEnd(handle, "COPY aborted by the client: \(error)")
            while let result = PQgetResult(handle) { PQclear(result) }
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else {
            let error = PostgresError.fromConnection(handle, kind: PQstatus(handle) == CONNECTION_BAD ? .connectionLost : .other)
            while let result = PQgetResult(handle) { PQclear(result) }
            throw error
        }
        return try finishCopy(handle: handle)
    }

    /// Runs `COPY … TO STDOUT (FORMAT binary)` and calls `body` once per row with a cursor
    /// over its fields. Memory stays bounded by one row: nothing accumulates. Returns the
    /// number of rows.
    ///
    /// ```swift
    /// try connection.copyOut("COPY (SELECT id, minutes FROM shifts WHERE run_id = 42) TO STDOUT (FORMAT binary)") { row in
    ///     shifts.append(Shift(id: try row.int64(), minutes: try row.int32()))
    /// }
    /// ```
    ///
    /// Same rule as `copyIn`: no bind parameters, build `sql` only from integers you own.
    /// If `body` throws, the server is asked to cancel the COPY, the rest is discarded, and
    /// the error rethrown; the connection stays usable.
    @discardableResult
    public func copyOut(_ sql: String, _ body: (inout BinaryCopyRow) throws -> Void) throws -> Int {
        let handle = try requireHandle()
        try startCopy(sql, handle: handle, expecting: PGRES_COPY_OUT)
        var headerPending = true
        var rows = 0
        var trailerSeen = false
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = Int(PQgetCopyData(handle, &buffer, 0))
            if length == -1 { break }
            guard length >= 0, let buffer else {
                throw PostgresError.from(result: nil, connection: handle)
            }
            defer { PQfreemem(buffer) }
            let base = UnsafeRawPointer(buffer)
            var offset = 0
            do {
                if headerPending {
                    offset = try Self.checkHeader(base, length)
                    headerPending = false
                }
                if offset == length { continue }
                guard length - offset >= 2 else { throw PostgresError.copyFormat("COPY message of \(length) bytes has no field count") }
                let fieldCount = Int(Int16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: Int16.self)))
                if fieldCount == -1 {
                    trailerSeen = true
                    continue
                }
                guard !trailerSeen, fieldCount >= 0 else {
                    throw PostgresError.copyFormat("unexpected field count \(fieldCount) in binary COPY data")
                }
                var row = BinaryCopyRow(base: base + offset + 2, byteCount: length - offset - 2, fieldCount: fieldCount)
                try body(&row)
                rows += 1
            } catch {
                abandonCopyOut(handle)
                throw error
            }
        }
        _ = try finishCopy(handle: handle)
        return rows
    }

    /// Sends the COPY statement and checks that the server entered the expected COPY mode in
    /// binary format.
    private func startCopy(_ sql: String, handle: OpaquePointer, expecting: ExecStatusType) throws(PostgresError) {
        guard let result = PQexec(handle, sql) else {
            throw PostgresError.from(result: nil, connection: handle)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        if status == expecting {
            guard PQbinaryTuples(result) == 1 else {
                abandonCopy(handle)
                throw .invalidUsage("COPY must use (FORMAT binary): \(sql)")
            }
            return
        }
        switch status {
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            abandonCopy(handle)
            throw .invalidUsage("COPY direction does not match: use copyIn for FROM STDIN, copyOut for TO STDOUT")
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            throw .invalidUsage("not a COPY statement: \(sql)")
        default:
            throw PostgresError.from(result: result, connection: handle)
        }
    }

    /// Reads the final result of a COPY; returns the row count the server reports.
    private func finishCopy(handle: OpaquePointer) throws(PostgresError) -> Int {
        var error: PostgresError?
        var count = 0
        while let raw = PQgetResult(handle) {
            let result = PostgresResult(handle: raw)
            if PQresultStatus(raw) == PGRES_COMMAND_OK {
                count = result.affectedRowCount ?? 0
            } else if error == nil {
                error = PostgresError.from(result: raw, connection: handle)
            }
        }
        if let error { throw error }
        return count
    }

    /// Cancels a running COPY OUT and discards what is still in flight.
    private func abandonCopyOut(_ handle: OpaquePointer) {
        if let cancel = PQgetCancel(handle) {
            var message = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancel, &message, Int32(message.count))
            PQfreeCancel(cancel)
        }
        var buffer: UnsafeMutablePointer<CChar>?
        while PQgetCopyData(handle, &buffer, 0) >= 0 {
            PQfreemem(buffer)
            buffer = nil
        }
        while let result = PQgetResult(handle) { PQclear(result) }
    }

    /// Validates the 19-byte header (+ extension) at the start of binary COPY data; returns
    /// the offset just past it.
    static func checkHeader(_ base: UnsafeRawPointer, _ length: Int) throws(PostgresError) -> Int {
        guard length >= BinaryCopyFormat.headerBytes else {
            throw .copyFormat("binary COPY header missing (\(length) bytes)")
        }
        for index in 0..<BinaryCopyFormat.signature.count {
            guard base.load(fromByteOffset: index, as: UInt8.self) == BinaryCopyFormat.signature[index] else {
                throw .copyFormat("binary COPY signature mismatch")
            }
        }
        let extensionBytes = Int(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 15, as: UInt32.self)))
        guard extensionBytes <= length - BinaryCopyFormat.headerBytes else {
            throw .copyFormat("binary COPY header extension exceeds the message")
        }
        return BinaryCopyFormat.headerBytes + extensionBytes
    }
}
