/// The explicit break windows of a shift as read from `shifts.breaks` (a `tstzmultirange`) in
/// binary COPY format, decoded in Swift instead of formatted by the server (a per-row
/// `string_agg(unnest(breaks))` subquery cost about as much as the rest of the shift read).
///
/// Each window's bounds are UTC minutes since 1970, rounded to the nearest minute (halves away
/// from zero), as the server's `(extract(epoch FROM lower(r)) / 60)::bigint` did; bound
/// inclusivity is ignored, as before. A window with an infinite or missing bound, or a bound too
/// far from 2000 to be a shift time, is kept as nil for the loader to report on the shift; so is
/// a value that is not a well-formed binary multirange (the shift's error, not the chunk's).
struct BreakRanges: Sendable, Equatable {
    struct Window: Sendable, Equatable {
        var startMinutes: Int64
        var endMinutes: Int64
    }

    var windows: [Window?]

    /// `multirange_send`: int32 range count, then per range an int32 length and `range_send`:
    /// a flags byte, then the lower and upper bounds present (each an int32 length and, for
    /// timestamptz, 8 bytes of microseconds since 2000-01-01 UTC).
    init(multirange bytes: UnsafeRawBufferPointer) {
        var windows: [Window?] = []
        _ = Self.decode(multirange: bytes, appendingTo: &windows)
        self.windows = windows
    }

    struct Malformed: Error {}

    /// Decodes `bytes` onto the end of `windows` (the loader keeps the windows of a whole chunk in
    /// one array) and returns the range of what it appended; a malformed value appends a single
    /// nil, as `init(multirange:)` keeps `[nil]`.
    static func decode(multirange bytes: UnsafeRawBufferPointer, appendingTo windows: inout [Window?]) -> Range<Int32> {
        let start = windows.count
        do throws(Malformed) {
            try decode(bytes, appendingTo: &windows)
        } catch {
            windows.removeSubrange(start...)
            windows.append(nil)
        }
        // A chunk holding 2³¹ windows (at least 16 GiB of them) cannot be loaded anyway.
        precondition(windows.count <= Int(Int32.max), "break windows of one chunk fit Int32 indices")
        return Int32(start)..<Int32(windows.count)
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, appendingTo windows: inout [Window?]) throws(Malformed) {
        var reader = Reader(bytes: bytes)
        let count = try reader.int32()
        guard count >= 0, count <= 10_000 else { throw Malformed() }
        for _ in 0..<count {
            let length = try reader.int32()
            let end = reader.offset + Int(length)
            guard length >= 1, end <= bytes.count else { throw Malformed() }
            let flags = try reader.uint8()
            let empty = flags & 0x01 != 0, lowerInfinite = flags & 0x08 != 0, upperInfinite = flags & 0x10 != 0
            var lower: Int64? = nil, upper: Int64? = nil
            if !empty && !lowerInfinite { lower = try reader.bound() }
            if !empty && !upperInfinite { upper = try reader.bound() }
            guard reader.offset == end else { throw Malformed() }
            if let lower, let upper, let lo = Self.roundedMinutes(lower), let hi = Self.roundedMinutes(upper) {
                windows.append(Window(startMinutes: lo, endMinutes: hi))
            } else {
                windows.append(nil)
            }
        }
        guard reader.offset == bytes.count else { throw Malformed() }
    }

    init(windows: [Window?]) { self.windows = windows }

    /// Microseconds since 2000-01-01 UTC → UTC minutes since 1970, nearest (halves away from
    /// zero); nil beyond ±100,000 years (and for ±infinity), which no shift has.
    static func roundedMinutes(_ microsecondsSince2000: Int64) -> Int64? {
        let limit: Int64 = 3_155_760_000_000_000_000  // 100,000 years of microseconds
        guard microsecondsSince2000 > -limit, microsecondsSince2000 < limit else { return nil }
        let unix = microsecondsSince2000 + 946_684_800_000_000
        let (q, r) = unix.quotientAndRemainder(dividingBy: 60_000_000)
        if r >= 30_000_000 { return q + 1 }
        if r <= -30_000_000 { return q - 1 }
        return q
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func int32() throws(Malformed) -> Int32 {
            guard offset + 4 <= bytes.count else { throw Malformed() }
            defer { offset += 4 }
            return Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self))
        }

        mutating func uint8() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw Malformed() }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// One bound: int32 length (8) and the timestamptz.
        mutating func bound() throws(Malformed) -> Int64 {
            let length = try int32()
            guard length == 8, offset + 8 <= bytes.count else { throw Malformed() }
            defer { offset += 8 }
            return Int64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
        }
    }
}
