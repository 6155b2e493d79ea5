import ArgumentParser
import Foundation
import PayrollRules
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `payrun tax`: 간이세액표 withholding for JSON Lines requests on stdin (calc-api.md).
struct TaxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tax",
        abstract: "Income tax withholding from JSON Lines requests (calc-api.md).",
        discussion: """
            Reads one request per line on standard input, for example
              {"monthlyPay": 3000000, "family": 1, "children8to20": 0, "ratio": 100, "payDate": "2026-11-25"}
            and writes one response per line, in order:
              {"incomeTax":74350,"localIncomeTax":7430,"tableCell":74350,"childDeduction":0}
            A line that cannot be computed gets {"error":{"code":…,"message":…,"field":…}}; the other
            lines are still answered and the exit status is 1. Blank lines are skipped.
            """
    )

    func run() throws {
        var anyFailed = false
        var output = BufferedOutput(fileDescriptor: 1)
        var input = LineReader(fileDescriptor: 0)
        while let next = input.nextLine(beforeBlocking: { output.flush() }) {
            let response: (json: String, ok: Bool)
            switch next {
            case let .line(line):
                guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
                response = TaxAPI.respond(toLine: line)
            case .tooLong:
                response = (TaxAPI.encode(PayrollError(.invalidJSON, "line longer than "
                                                       + String(LineReader.lineBytesMax) + " bytes")), false)
            }
            if !response.ok { anyFailed = true }
            output.append(response.json)
            output.append("\n")
        }
        output.flush()
        if input.readFailed || output.writeFailed { throw ExitCode(2) }
        if anyFailed { throw ExitCode(1) }
    }
}

/// Reads lines from a file descriptor in 64 KiB reads (no syscall per line) into one reused
/// buffer that grows only for a line longer than it, up to `lineBytesMax`; a longer line is
/// skipped and reported as `.tooLong`. `\r\n` endings are accepted; a last line without a newline
/// is still returned.
fileprivate struct LineReader {
    enum Next {
        case line(Data)
        case tooLong
    }

    /// Longest accepted line (a request is a few hundred bytes).
    static let lineBytesMax = 1 << 20

    let fileDescriptor: Int32
    /// Discarding the rest of a line over `lineBytesMax` until its newline.
    private var skipping = false
    private var storage = [UInt8](repeating: 0, count: 1 << 16)
    /// Unconsumed bytes are storage[start..<end].
    private var start = 0
    private var end = 0
    private var atEnd = false
    private(set) var readFailed = false

    init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// The next line without its terminator, or nil at end of input. `beforeBlocking` runs before
    /// every read from the descriptor, so a caller can flush answers to lines already read (an
    /// interactive client sees each answer without waiting for end of input).
    mutating func nextLine(beforeBlocking: () -> Void) -> Next? {
        while true {
            if skipping {
                if let newline = findNewline() {
                    skipping = false
                    start = newline + 1
                    return .tooLong
                }
                start = end  // drop everything read so far
                if atEnd { skipping = false; return .tooLong }
            } else if let line = takeLine() {
                return .line(line)
            } else if end - start >= Self.lineBytesMax {
                skipping = true
                continue
            }
            if atEnd { return nil }
            if start > 0 {  // move the partial line to the front
                let (from, count) = (start, end - start)
                storage.withUnsafeMutableBufferPointer { p in
                    _ = memmove(p.baseAddress!, p.baseAddress! + from, count)
                }
                start = 0
                end = count
            }
            if end == storage.count { storage += [UInt8](repeating: 0, count: storage.count) }
            beforeBlocking()
            let (from, room) = (end, storage.count - end)
            let got = storage.withUnsafeMutableBufferPointer { p in read(fileDescriptor, p.baseAddress! + from, room) }
            if got > 0 {
                end += got
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                atEnd = true
                readFailed = got < 0
            }
        }
    }

    /// Index of the next newline in storage[start..<end], if any.
    private func findNewline() -> Int? {
        guard start < end else { return nil }
        let (from, to) = (start, end)
        return storage.withUnsafeBufferPointer { p in
            memchr(p.baseAddress! + from, 0x0A, to - from).map { p.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
        }
    }

    /// A complete line from the buffer (or the unterminated rest at end of input), if there is one.
    private mutating func takeLine() -> Data? {
        guard start < end else { return nil }
        let (from, to, last) = (start, end, atEnd)
        let newline = findNewline()
        let found: (line: Data, next: Int)? = storage.withUnsafeBufferPointer { p in
            let base = p.baseAddress!
            guard let lineEnd = newline ?? (last ? to : nil) else { return nil }
            var contentEnd = lineEnd
            if contentEnd > from && base[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            return (Data(bytes: base + from, count: contentEnd - from), min(lineEnd + 1, to))
        }
        guard let found else { return nil }
        start = found.next
        return found.line
    }
}

/// Collects output bytes and writes them in large pieces.
fileprivate struct BufferedOutput {
    let fileDescriptor: Int32
    private var bytes: [UInt8] = []
    private(set) var writeFailed = false
    static let flushBytes = 1 << 16

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        bytes.reserveCapacity(Self.flushBytes + 4096)
    }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= Self.flushBytes { flush() }
    }

    mutating func flush() {
        var offset = 0
        while offset < bytes.count && !writeFailed {
            let written = bytes.withUnsafeBytes { raw in
                write(fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                writeFailed = true
            } else {
                offset += written
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }
}
