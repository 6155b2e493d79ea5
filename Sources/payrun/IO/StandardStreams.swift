#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import PayrollRules

/// Raw, buffered standard input and output for the JSON Lines commands: stdin is read in large
/// chunks straight into a reusable buffer, and output is written in large blocks.
enum StandardStreams {
    /// Bytes read from stdin per `read(2)`.
    static let readChunkBytes = 1 << 18
    /// Output is flushed once the buffer holds this many bytes.
    static let writeFlushBytes = 1 << 18

    struct IOFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads stdin to its end, handing each line to `body` in order. `beforeRead` runs before
    /// every `read(2)`, so the caller can flush the answers to lines already read: a client that
    /// writes one request and waits for its answer (a coprocess) is never left waiting on a buffer.
    static func forEachLine(lineBytesMax: Int, beforeRead: () throws -> Void,
                            _ body: (JSONLinesReader.Line) throws -> Void) throws {
        var reader = JSONLinesReader(lineBytesMax: lineBytesMax)
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: readChunkBytes)
        defer { buffer.deallocate() }
        while true {
            try beforeRead()
            let n = read(0, buffer.baseAddress, readChunkBytes)
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(description: "reading standard input failed (errno \(errno))")
            }
            if n == 0 { break }
            try reader.feed(UnsafeBufferPointer(rebasing: buffer[0..<n]), body)
        }
        try reader.finish(body)
    }

    /// The loop of the JSON Lines commands (`payrun calc`, `payrun tax`): reads stdin line by line
    /// (lines up to `CalcLimits.lineBytesMax`), appends each answer to one output buffer written
    /// in large blocks and flushed before every read (coprocess use), and ends with the exit
    /// status of calc-api.md: 1 when any line failed, 2 when reading or writing failed.
    static func serveJSONLines(commandName: String,
                               respond: (JSONLinesReader.Line, inout JSONWriter) -> JSONLineOutcome) throws {
        var out = JSONWriter(capacity: writeFlushBytes + 65_536)
        var failedLines = 0
        func flush() throws {
            guard !out.bytes.isEmpty else { return }
            try write(out.bytes)
            out.removeAll()
        }
        do {
            try forEachLine(lineBytesMax: CalcLimits.lineBytesMax, beforeRead: flush) { line in
                if respond(line, &out) == .failed { failedLines += 1 }
                if out.bytes.count >= writeFlushBytes { try flush() }
            }
            try flush()
        } catch let failure as IOFailure {
            writeError("payrun \(commandName): \(failure.description)\n")
            throw ExitCode(2)
        }
        if failedLines > 0 { throw ExitCode(1) }
    }

    /// Best effort: a message on stderr.
    static func writeError(_ message: String) {
        var message = message
        message.withUTF8 { b in
            guard let base = b.baseAddress else { return }
            _ = writeToFD(2, UnsafeRawPointer(base), b.count)
        }
    }

    /// Writes all of `bytes` to stdout.
    static func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = writeToFD(1, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw IOFailure(description: "writing standard output failed (errno \(errno))")
                }
                offset += n
            }
        }
    }
}

/// `write(2)`, named apart from `StandardStreams.write`.
private func writeToFD(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}
