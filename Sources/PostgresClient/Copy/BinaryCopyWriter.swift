import CLibPQ

/// Writes rows of a `COPY … FROM STDIN (FORMAT binary)` started by
/// `PostgresConnection.copyIn`. Rows are encoded into one buffer that is sent with a single
/// `PQputCopyData` whenever it reaches `flushThresholdBytes`.
///
/// Valid only inside the `copyIn` closure; not `Sendable`.
public final class BinaryCopyWriter {
    @usableFromInline var buffer: [UInt8]
    @usableFromInline let flushThresholdBytes: Int
    @usableFromInline let handle: OpaquePointer
    /// Rows written so far.
    public private(set) var rowCount = 0

    init(handle: OpaquePointer, flushThresholdBytes: Int) {
        self.handle = handle
        self.flushThresholdBytes = flushThresholdBytes
        buffer = []
        buffer.reserveCapacity(flushThresholdBytes + 64 * 1024)
        buffer.append(contentsOf: BinaryCopyFormat.header)
    }

    /// Writes one row: `body` writes every column in table order (or in the order of the
    /// COPY's column list). The field count is filled in after `body` returns. If `body`
    /// throws, the partial row is discarded and the error rethrown.
    @inlinable
    public func row(_ body: (inout BinaryCopyRowEncoder) throws -> Void) throws {
        var encoder = BinaryCopyRowEncoder()
        swap(&encoder.buffer, &buffer)  // the encoder owns the bytes while `body` runs
        let start = encoder.buffer.count
        encoder.buffer.append(0)
        encoder.buffer.append(0)
        do {
            try body(&encoder)
        } catch {
            encoder.buffer.removeSubrange(start...)
            swap(&encoder.buffer, &buffer)
            throw error
        }
        let fieldCount = UInt16(truncatingIfNeeded: encoder.fieldCount)
        encoder.buffer[start] = UInt8(truncatingIfNeeded: fieldCount >> 8)
        encoder.buffer[start + 1] = UInt8(truncatingIfNeeded: fieldCount)
        swap(&encoder.buffer, &buffer)
        try finishRow()
    }

    /// Counts the row and flushes when the buffer is full.
    @usableFromInline
    func finishRow() throws(PostgresError) {
        rowCount += 1
        if buffer.count >= flushThresholdBytes { try flush() }
    }

    /// Sends the buffered bytes to the server.
    func flush() throws(PostgresError) {
        guard !buffer.isEmpty else { return }
        let status = buffer.withUnsafeBytes { raw in
            PQputCopyData(handle, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count))
        }
        guard status == 1 else {
            throw PostgresError.fromConnection(handle, kind: PQstatus(handle) == CONNECTION_BAD ? .connectionLost : .other)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    func finish() throws(PostgresError) {
        buffer.append(contentsOf: BinaryCopyFormat.trailer)
        try flush()
    }
}

/// Encodes the fields of one binary COPY row. Each call writes one column.
public struct BinaryCopyRowEncoder {
    @usableFromInline var buffer: [UInt8] = []
    @usableFromInline var fieldCount = 0

    @usableFromInline init() {}

    @inlinable
    mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }

    @inlinable
    mutating func field<T: FixedWidthInteger>(_ value: T) {
        appendInteger(Int32(MemoryLayout<T>.size))
        appendInteger(value)
        fieldCount += 1
    }

    /// SQL NULL.
    @inlinable public mutating func null() {
        appendInteger(Int32(-1))
        fieldCount += 1
    }

    /// `smallint`.
    @inlinable public mutating func int16(_ value: Int16) { field(value) }
    /// `integer`.
    @inlinable public mutating func int32(_ value: Int32) { field(value) }
    /// `bigint`.
    @inlinable public mutating func int64(_ value: Int64) { field(value) }
    /// `boolean`.
    @inlinable public mutating func bool(_ value: Bool) { field(UInt8(value ? 1 : 0)) }
    /// `date` as days since 2000-01-01.
    @inlinable public mutating func date(daysSince2000: Int32) { field(daysSince2000) }
    /// `date`.
    @inlinable public mutating func date(_ value: PostgresDate) { field(value.daysSince2000) }
    /// `timestamptz` as microseconds since 2000-01-01 00:00 UTC.
    @inlinable public mutating func timestamptz(microsecondsSince2000: Int64) { field(microsecondsSince2000) }
    /// `timestamptz`.
    @inlinable public mutating func timestamptz(_ value: PostgresTimestamp) { field(value.microsecondsSince2000) }

    /// `text` / `varchar` (UTF-8).
    @inlinable public mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            appendInteger(Int32(utf8.count))
            buffer.append(contentsOf: utf8)
        }
        fieldCount += 1
    }

    /// `bytea`.
    @inlinable public mutating func bytea(_ value: [UInt8]) {
        appendInteger(Int32(value.count))
        buffer.append(contentsOf: value)
        fieldCount += 1
    }

    /// `bigint` or NULL.
    @inlinable public mutating func int64(_ value: Int64?) {
        if let value { int64(value) } else { null() }
    }

    /// `integer` or NULL.
    @inlinable public mutating func int32(_ value: Int32?) {
        if let value { int32(value) } else { null() }
    }

    /// `text` or NULL.
    @inlinable public mutating func text(_ value: String?) {
        if let value { text(value) } else { null() }
    }
}
