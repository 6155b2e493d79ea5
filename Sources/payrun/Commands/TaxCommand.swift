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
        while let line = input.nextLine(beforeBlocking: { output.flush() }) {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            let response = TaxAPI.respond(toLine: Data(line))
            if !response.ok { anyFailed = true }
            output.append(response.json)
            output.append("\n")
        }
        output.flush()
        if input.readFailed || output.writeFailed { throw ExitCode(2) }
        if anyFailed { throw ExitCode(1) }
    }
}

/// Reads lines from a file descriptor in 64 KiB chunks (no syscall per line). `\r\n` endings are
/// accepted; a last line without a newline is still returned.
fileprivate struct LineReader {
    let fileDescriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private(set) var readFailed = false
    static let chunkBytes = 1 << 16

    init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// The next line without its terminator, or nil at end of input. `beforeBlocking` runs before
    /// every read from the descriptor, so a caller can flush answers to lines already read (an
    /// interactive client sees each answer without waiting for end of input).
    mutating func nextLine(beforeBlocking: () -> Void) -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return line
            }
            // Drop consumed bytes, then read more.
            if start > 0 { buffer.removeSubrange(0..<start); start = 0 }
            beforeBlocking()
            let old = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: Self.chunkBytes))
            let got = buffer.withUnsafeMutableBytes { raw in
                read(fileDescriptor, raw.baseAddress! + old, Self.chunkBytes)
            }
            if got < 0 && errno == EINTR { buffer.removeSubrange(old...); continue }
            buffer.removeSubrange((old + max(got, 0))...)
            if got <= 0 { atEnd = true; readFailed = got < 0 }
        }
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
