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

    /// The rows written so far, a column at a time: for each column one one-dimensional array in
    /// PostgreSQL's binary array format (`array_send`: one dimension, a has-nulls flag, the element
    /// type, the length and lower bound 1, then every element as a length and its bytes — the
    /// rows' fields exactly as encoded, NULL as length −1), its elements the column's fields in row
    /// order. `elementTypes[k]` is the type OID of column k (`array_recv` refuses another); every
    /// row must have `elementTypes.count` fields (a precondition: the rows were encoded for them).
    ///
    /// Sent as `.binary(type:bytes:)` parameters of the matching array types, `unnest($1::int8[],
    /// $2::text[], …)` in a FROM clause gives the rows back, in order: one INSERT of many rows
    /// where COPY cannot be used (PostgreSQL refuses COPY FROM into a table under row-level
    /// security) and without a table to stage them in.
    public func columnArrays(elementTypes: [UInt32]) -> [[UInt8]] {
        let columns = elementTypes.count
        let raw = UnsafeRawPointer(storage)
        func fieldLength(at offset: Int) -> Int {
            Int(Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
        }
        // Pass 1: each array's size and whether it holds a NULL.
        var sizes = [Int](repeating: 20, count: columns)
        var hasNull = [Bool](repeating: false, count: columns)
        var offset = 0
        for _ in 0..<rowCount {
            let fields = Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
            precondition(fields == columns, "a row of \(fields) fields for \(columns) columns")
            offset += 2
            for k in 0..<columns {
                let length = fieldLength(at: offset)
                if length < 0 { hasNull[k] = true }
                sizes[k] += 4 + max(length, 0)
                offset += 4 + max(length, 0)
            }
        }
        // Pass 2: the header, then each field's length and bytes copied as they are.
        var arrays: [[UInt8]] = (0..<columns).map { k in
            var array: [UInt8] = []
            array.reserveCapacity(sizes[k])
            array.appendBigEndian(Int32(1))
            array.appendBigEndian(Int32(hasNull[k] ? 1 : 0))
            array.appendBigEndian(elementTypes[k])
            array.appendBigEndian(Int32(truncatingIfNeeded: rowCount))
            array.appendBigEndian(Int32(1))
            return array
        }
        offset = 0
        for _ in 0..<rowCount {
            offset += 2
            for k in 0..<columns {
                let count = 4 + max(fieldLength(at: offset), 0)
                arrays[k].append(contentsOf: UnsafeRawBufferPointer(start: raw + offset, count: count))
                offset += count
            }
        }
        return arrays
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
