import CLibPQ

/// Writes rows of a `COPY … FROM STDIN (FORMAT binary)` started by
/// `PostgresConnection.copyIn`. Rows are encoded into one buffer that is sent with a single
/// `PQputCopyData` whenever it reaches `flushThresholdBytes`.
///
/// Valid only inside the `copyIn` closure; not `Sendable`.
public final class BinaryCopyWriter {
    /// The send buffer: `byteCount` bytes used of `byteCapacity`.
    @usableFromInline var storage: UnsafeMutableRawPointer
    @usableFromInline var byteCount = 0
    @usableFromInline var byteCapacity: Int
    @usableFromInline let flushThresholdBytes: Int
    let handle: OpaquePointer
    /// Rows written so far.
    public private(set) var rowCount = 0

    init(handle: OpaquePointer, flushThresholdBytes: Int) {
        self.handle = handle
        self.flushThresholdBytes = flushThresholdBytes
        byteCapacity = flushThresholdBytes + 64 * 1024
        storage = UnsafeMutableRawPointer.allocate(byteCount: byteCapacity, alignment: 16)
        for byte in BinaryCopyFormat.header {
            storage.storeBytes(of: byte, toByteOffset: byteCount, as: UInt8.self)
            byteCount += 1
        }
    }

    deinit {
        storage.deallocate()
    }

    /// Writes one row: `body` writes every column in table order (or in the order of the
    /// COPY's column list). The field count is filled in after `body` returns. If `body`
    /// throws, the partial row is discarded and the error rethrown.
    @inlinable
    public func row(_ body: (inout BinaryCopyRowEncoder) throws -> Void) throws {
        // After every row byteCount < flushThresholdBytes < byteCapacity - 2: room for the count.
        let rowStart = byteCount
        var encoder = BinaryCopyRowEncoder(base: storage, byteCount: rowStart + 2, byteCapacity: byteCapacity)
        do {
            try body(&encoder)
        } catch {
            storage = encoder.base
            byteCapacity = encoder.byteCapacity
            throw error
        }
        storage = encoder.base
        byteCapacity = encoder.byteCapacity
        storage.storeBytes(of: UInt16(truncatingIfNeeded: encoder.fieldCount).bigEndian, toByteOffset: rowStart, as: UInt16.self)
        byteCount = encoder.byteCount
        try finishRow()
    }

    /// Counts the row and flushes when the buffer is full.
    @usableFromInline
    func finishRow() throws(PostgresError) {
        rowCount += 1
        if byteCount >= flushThresholdBytes { try flush() }
    }

    /// Sends the buffered bytes to the server.
    func flush() throws(PostgresError) {
        guard byteCount > 0 else { return }
        let status = PQputCopyData(handle, storage.assumingMemoryBound(to: CChar.self), Int32(byteCount))
        guard status == 1 else {
            throw PostgresError.fromConnection(handle, kind: PQstatus(handle) == CONNECTION_BAD ? .connectionLost : .other)
        }
        byteCount = 0
    }

    func finish() throws(PostgresError) {
        if byteCount + 2 > byteCapacity { try flush() }
        storage.storeBytes(of: Int16(-1).bigEndian, toByteOffset: byteCount, as: Int16.self)
        byteCount += 2
        try flush()
    }
}

/// Encodes the fields of one binary COPY row into the writer's buffer. Each call writes one
/// column. Only usable inside `BinaryCopyWriter.row`.
public struct BinaryCopyRowEncoder {
    @usableFromInline var base: UnsafeMutableRawPointer
    @usableFromInline var byteCount: Int
    @usableFromInline var byteCapacity: Int
    @usableFromInline var fieldCount = 0

    @usableFromInline
    init(base: UnsafeMutableRawPointer, byteCount: Int, byteCapacity: Int) {
        self.base = base
        self.byteCount = byteCount
        self.byteCapacity = byteCapacity
    }

    /// Makes room for `bytes` more bytes.
    @inlinable @inline(__always)
    mutating func reserve(_ bytes: Int) {
        if byteCount + bytes > byteCapacity { grow(bytes) }
    }

    @usableFromInline
    mutating func grow(_ bytes: Int) {
        let capacity = max(byteCapacity * 2, byteCount + bytes)
        let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        larger.copyMemory(from: base, byteCount: byteCount)
        base.deallocate()
        base = larger
        byteCapacity = capacity
    }

    @inlinable @inline(__always)
    mutating func put<T: FixedWidthInteger>(_ value: T) {
        base.storeBytes(of: value.bigEndian, toByteOffset: byteCount, as: T.self)
        byteCount += MemoryLayout<T>.size
    }

    @inlinable @inline(__always)
    mutating func field<T: FixedWidthInteger>(_ value: T) {
        reserve(4 + MemoryLayout<T>.size)
        put(Int32(MemoryLayout<T>.size))
        put(value)
        fieldCount += 1
    }

    @inlinable @inline(__always)
    mutating func field(bytes: UnsafeRawBufferPointer) {
        reserve(4 + bytes.count)
        put(Int32(bytes.count))
        if let source = bytes.baseAddress, bytes.count > 0 {
            (base + byteCount).copyMemory(from: source, byteCount: bytes.count)
        }
        byteCount += bytes.count
        fieldCount += 1
    }

    /// A field of exactly `byteCount` bytes written in place by `initialize` (no intermediate
    /// array and no copy, for a value whose encoded length is known before it is written), e.g.
    /// `json` text. `initialize` must write all `byteCount` bytes of the buffer it is given.
    @inlinable public mutating func field(byteCount: Int, initializingWith initialize: (UnsafeMutableRawBufferPointer) -> Void) {
        precondition(byteCount >= 0 && byteCount <= Int(Int32.max), "binary COPY field length out of range")
        reserve(4 + byteCount)
        put(Int32(byteCount))
        initialize(UnsafeMutableRawBufferPointer(start: base + self.byteCount, count: byteCount))
        self.byteCount += byteCount
        fieldCount += 1
    }

    /// A field of at most `maxByteCount` bytes written in place by `write`, which returns how many
    /// it wrote: its length, set afterwards (for a value whose exact length is only known once
    /// written, such as escaped JSON text, bounded beforehand). Room for `maxByteCount` is made.
    @inlinable public mutating func field(maxByteCount: Int, writingWith write: (UnsafeMutableRawBufferPointer) -> Int) {
        precondition(maxByteCount >= 0 && maxByteCount <= Int(Int32.max), "binary COPY field length out of range")
        reserve(4 + maxByteCount)
        let lengthOffset = byteCount
        let written = write(UnsafeMutableRawBufferPointer(start: base + lengthOffset + 4, count: maxByteCount))
        precondition(written >= 0 && written <= maxByteCount, "binary COPY field wrote \(written) bytes, at most \(maxByteCount) allowed")
        base.storeBytes(of: Int32(truncatingIfNeeded: written).bigEndian, toByteOffset: lengthOffset, as: Int32.self)
        byteCount = lengthOffset + 4 + written
        fieldCount += 1
    }

    /// SQL NULL.
    @inlinable @inline(__always) public mutating func null() {
        reserve(4)
        put(Int32(-1))
        fieldCount += 1
    }

    /// `smallint`.
    @inlinable public mutating func int16(_ value: Int16) { field(value) }
    /// `integer`.
    @inlinable @inline(__always) public mutating func int32(_ value: Int32) { field(value) }
    /// `bigint`.
    @inlinable @inline(__always) public mutating func int64(_ value: Int64) { field(value) }
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
        value.withUTF8 { field(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// `bytea`.
    @inlinable public mutating func bytea(_ value: [UInt8]) {
        value.withUnsafeBytes { field(bytes: $0) }
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
