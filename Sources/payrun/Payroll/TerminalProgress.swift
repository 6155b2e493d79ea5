#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One rewritable status line on stderr, shown only when stderr is a terminal (so logs and pipes
/// stay clean).
struct TerminalProgress {
    let enabled = isatty(2) == 1

    func update(_ text: String) {
        guard enabled else { return }
        StandardStreams.writeError("\r\u{1B}[2K" + text)
    }

    func finish() {
        guard enabled else { return }
        StandardStreams.writeError("\r\u{1B}[2K")
    }
}
