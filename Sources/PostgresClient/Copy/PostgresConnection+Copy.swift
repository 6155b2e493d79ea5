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
        var state = CopyOutState()
        // Messages already received are copied into one reused buffer (`PQgetlineAsync`) instead
        // of a buffer that libpq allocates per row (`PQgetCopyData`) and the caller frees; only
        // when none is complete yet does `PQgetCopyData` wait for the server (and allocate).
        var capacity = 64 * 1024
        var scratch = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { scratch.deallocate() }
        while true {
            var length = Int(PQgetlineAsync(handle, scratch.assumingMemoryBound(to: CChar.self), Int32(capacity)))
            if length > 0 {
                // The common message, straight to `body`: one whole row (shorter than the buffer, so
                // not a first piece) between the header and the trailer. What `handleCopyOutMessage`
                // does for it, without its checks for the header, the trailer and a partial message.
                if length < capacity, state.betweenHeaderAndTrailer, length >= 2 {
                    let fieldCount = Int(Int16(bigEndian: scratch.loadUnaligned(as: Int16.self)))
                    if fieldCount >= 0 {
                        var row = BinaryCopyRow(base: UnsafeRawPointer(scratch) + 2, byteCount: length &- 2, fieldCount: fieldCount)
                        do {
                            try body(&row)
                        } catch {
                            abandonCopyOut(handle)
                            throw error
                        }
                        state.rows &+= 1
                        continue
                    }
                }
                // A message longer than the buffer arrives in pieces (the rest stays in libpq's
                // buffer): grow and read on until it is whole.
                while length == capacity, Self.copyMessageIsPartial(scratch, length, headerPending: state.headerPending) {
                    let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 16)
                    grown.copyMemory(from: scratch, byteCount: length)
                    scratch.deallocate()
                    scratch = grown
                    capacity *= 2
                    let more = Int(PQgetlineAsync(handle, (scratch + length).assumingMemoryBound(to: CChar.self),
                                                  Int32(capacity - length)))
                    guard more > 0 else {
                        abandonCopyOut(handle)
                        throw PostgresError.copyFormat("binary COPY message ended inside a row")
                    }
                    length += more
                }
                try handleCopyOutMessage(UnsafeRawPointer(scratch), length, state: &state, handle: handle, body)
                continue
            }
            if length == -1 { break }
            // Nothing complete received yet: wait for the next message (libpq allocates it).
            var buffer: UnsafeMutablePointer<CChar>?
            length = Int(PQgetCopyData(handle, &buffer, 0))
            if length == -1 { break }
            guard length >= 0, let buffer else {
                throw PostgresError.from(result: nil, connection: handle)
            }
            defer { PQfreemem(buffer) }
            try handleCopyOutMessage(UnsafeRawPointer(buffer), length, state: &state, handle: handle, body)
        }
        _ = try finishCopy(handle: handle)
        return state.rows
    }

    /// Where a COPY OUT stands between messages.
    private struct CopyOutState {
        var headerPending = true {
            didSet { betweenHeaderAndTrailer = !headerPending && !trailerSeen }
        }
        var rows = 0
        var trailerSeen = false {
            didSet { betweenHeaderAndTrailer = !headerPending && !trailerSeen }
        }
        /// Rows may come: the header was read and the trailer not yet.
        private(set) var betweenHeaderAndTrailer = false
    }

    /// One CopyData message: the header (first message), a row for `body`, or the trailer.
    @inline(__always)
    private func handleCopyOutMessage(_ base: UnsafeRawPointer, _ length: Int, state: inout CopyOutState, handle: OpaquePointer,
                                      _ body: (inout BinaryCopyRow) throws -> Void) throws {
        var offset = 0
        do {
            if state.headerPending {
                offset = try Self.checkHeader(base, length)
                state.headerPending = false
            }
            if offset == length { return }
            guard length - offset >= 2 else { throw PostgresError.copyFormat("COPY message of \(length) bytes has no field count") }
            let fieldCount = Int(Int16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: Int16.self)))
            if fieldCount == -1 {
                state.trailerSeen = true
                return
            }
            guard !state.trailerSeen, fieldCount >= 0 else {
                throw PostgresError.copyFormat("unexpected field count \(fieldCount) in binary COPY data")
            }
            var row = BinaryCopyRow(base: base + offset + 2, byteCount: length - offset - 2, fieldCount: fieldCount)
            try body(&row)
            state.rows += 1
        } catch {
            abandonCopyOut(handle)
            throw error
        }
    }

    /// True when the `length` bytes at `base` (a CopyData message as far as received) end inside
    /// the header, a field count or a field, i.e. the message goes on. Only consulted when a
    /// message filled the whole buffer (`PQgetlineAsync` then may have returned a first piece):
    /// binary COPY data delimits itself, so a message that ends exactly at `length` is whole.
    /// A malformed message counts as whole (its parse reports it).
    static func copyMessageIsPartial(_ base: UnsafeRawPointer, _ length: Int, headerPending: Bool) -> Bool {
        var offset = 0
        if headerPending {
            guard length >= BinaryCopyFormat.headerBytes else { return true }
            let extensionBytes = Int(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 15, as: UInt32.self)))
            offset = BinaryCopyFormat.headerBytes + extensionBytes
            if offset >= length { return offset > length }
        }
        guard length - offset >= 2 else { return true }
        let fieldCount = Int(Int16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: Int16.self)))
        offset += 2
        guard fieldCount >= 0 else { return false }
        for _ in 0..<fieldCount {
            guard length - offset >= 4 else { return true }
            let fieldLength = Int(Int32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
            offset += 4
            guard fieldLength >= 0 else { continue }
            guard length - offset >= fieldLength else { return true }
            offset += fieldLength
        }
        return false
    }

    /// Sends the COPY statement and checks that the server entered the expected COPY mode in
    /// binary format.
    private func startCopy(_ sql: String, handle: OpaquePointer, expecting: ExecStatusType) throws(PostgresError) {
        roundTrips += 1
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
