/// Splits a byte stream, fed in chunks of any size, into JSON Lines.
///
/// A line ends at `\n`; a trailing `\r` is dropped; the last line needs no newline. A line longer
/// than `lineBytesMax` is never buffered beyond that size: it is reported once as `.tooLong` and
/// the rest of it is skipped up to the next newline. Lines that fit in one chunk are handed out
/// without copying.
public struct JSONLinesReader {
    public enum Line {
        case text(UnsafeBufferPointer<UInt8>)
        /// A line over the limit (its content is dropped).
        case tooLong
    }

    public let lineBytesMax: Int
    /// The start of a line carried over from the previous chunk.
    private var pending: [UInt8] = []
    /// Inside an over-long line, skipping to its newline.
    private var skipping = false

    public init(lineBytesMax: Int = CalcLimits.lineBytesMax) {
        self.lineBytesMax = lineBytesMax
    }

    /// Feeds one chunk; `body` is called for each line it completes, in order.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, _ body: (Line) throws -> Void) rethrows {
        var start = 0
        var i = 0
        let n = chunk.count
        while i < n {
            if chunk[i] != 0x0A { i += 1; continue }
            if skipping {
                skipping = false
                try body(.tooLong)
            } else if pending.isEmpty {
                try emit(UnsafeBufferPointer(rebasing: chunk[start..<i]), body)
            } else if pending.count + (i - start) > lineBytesMax + 1 {
                pending.removeAll(keepingCapacity: true)
                try body(.tooLong)
            } else {
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<i]))
                try pending.withUnsafeBufferPointer { try emit($0, body) }
                pending.removeAll(keepingCapacity: true)
            }
            i += 1
            start = i
        }
        guard start < n, !skipping else { return }
        // +1 leaves room for a `\r` before the newline.
        if pending.count + (n - start) > lineBytesMax + 1 {
            pending.removeAll(keepingCapacity: true)
            skipping = true
        } else {
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<n]))
        }
    }

    /// Ends the stream: emits a last line that had no newline.
    public mutating func finish(_ body: (Line) throws -> Void) rethrows {
        if skipping {
            skipping = false
            try body(.tooLong)
        } else if !pending.isEmpty {
            try pending.withUnsafeBufferPointer { try emit($0, body) }
            pending.removeAll()
        }
    }

    private func emit(_ line: UnsafeBufferPointer<UInt8>, _ body: (Line) throws -> Void) rethrows {
        var line = line
        if let last = line.last, last == 0x0D { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
        try body(line.count > lineBytesMax ? .tooLong : .text(line))
    }
}
