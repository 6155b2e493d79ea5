/// Binary COPY rows encoded into memory instead of onto a connection, exactly as
/// `BinaryCopyWriter.row` encodes them (field count, then each field's length and bytes), without
/// the COPY header and trailer. For tests that compare two encodings of the same rows and for
/// benchmarks that time a row encoder without a server.
public final class BinaryCopyRowBuffer {
    private var storage: UnsafeMutableRawPointer
    /// Bytes written so far.
    public private(set) var byteCount = 0
    private var byteCapacity: Int
    /// Rows written so far.
    public private(set) var rowCount = 0

    public init(initialCapacityBytes: Int = 64 * 1024) {
        byteCapacity = max(initialCapacityBytes, 16)
        storage = UnsafeMutableRawPointer.allocate(byteCount: byteCapacity, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    /// Appends one row: `body` writes every column, as in `BinaryCopyWriter.row`.
    public func row(_ body: (inout BinaryCopyRowEncoder) -> Void) {
        if byteCount + 2 > byteCapacity { grow(toAtLeast: byteCount + 2) }
        let rowStart = byteCount
        var encoder = BinaryCopyRowEncoder(base: storage, byteCount: rowStart + 2, byteCapacity: byteCapacity)
        body(&encoder)
        storage = encoder.base
        byteCapacity = encoder.byteCapacity
        storage.storeBytes(of: UInt16(truncatingIfNeeded: encoder.fieldCount).bigEndian, toByteOffset: rowStart, as: UInt16.self)
        byteCount = encoder.byteCount
        rowCount += 1
    }

    /// A copy of the bytes written so far.
    public var bytes: [UInt8] {
        Array(UnsafeRawBufferPointer(start: storage, count: byteCount))
    }

    /// Forgets the rows, keeping the capacity.
    public func removeAll() {
        byteCount = 0
        rowCount = 0
    }

    private func grow(toAtLeast capacity: Int) {
        let larger = UnsafeMutableRawPointer.allocate(byteCount: max(byteCapacity * 2, capacity), alignment: 16)
        larger.copyMemory(from: storage, byteCount: byteCount)
        storage.deallocate()
        storage = larger
        byteCapacity = max(byteCapacity * 2, capacity)
    }
}
