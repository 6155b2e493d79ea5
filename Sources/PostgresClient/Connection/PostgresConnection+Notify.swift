import CLibPQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A message received on a channel this connection LISTENs on.
public struct PostgresNotification: Sendable, Hashable {
    public var channel: String
    public var payload: String
    /// Server process id of the sender.
    public var senderPID: Int32
}

extension PostgresConnection {
    /// Longest channel name PostgreSQL keeps (NAMEDATALEN - 1 bytes).
    public static let channelNameBytesMax = 63

    /// Starts listening on `channel`. The name must be an identifier of at most 63 bytes made of
    /// ASCII letters, digits, `_` and `$`, not starting with a digit; it is quoted, so it is
    /// case-sensitive and matches `notify(channel, ...)` exactly.
    public func listen(_ channel: String) throws(PostgresError) {
        let quoted = try Self.quotedChannel(channel)
        try execute("LISTEN \(quoted)")
        if !listenedChannels.contains(channel) { listenedChannels.append(channel) }
    }

    /// Stops listening on `channel`.
    public func unlisten(_ channel: String) throws(PostgresError) {
        let quoted = try Self.quotedChannel(channel)
        try execute("UNLISTEN \(quoted)")
        listenedChannels.removeAll { $0 == channel }
    }

    /// Sends a notification with `pg_notify($1, $2)`. Inside a transaction it is delivered at
    /// commit. Payloads are limited by the server to under 8000 bytes.
    public func notify(_ channel: String, payload: String = "") throws(PostgresError) {
        _ = try Self.quotedChannel(channel)
        try execute("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// Returns the next pending notification, waiting up to `timeout` for one to arrive; nil
    /// on timeout. Must not be called inside a transaction that you expect to see its own
    /// notifications (they are delivered at commit).
    public func waitForNotification(timeout: Duration) throws(PostgresError) -> PostgresNotification? {
        let handle = try requireHandle()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            guard PQconsumeInput(handle) == 1 else {
                throw PostgresError.fromConnection(handle, kind: .connectionLost)
            }
            if let notification = Self.nextNotification(handle) { return notification }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            let socket = PQsocket(handle)
            guard socket >= 0 else { throw PostgresError.fromConnection(handle, kind: .connectionLost) }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            let ready = payrun_pg_wait_readable(socket, milliseconds)
            if ready < 0, errno != EINTR {
                throw PostgresError(kind: .other, message: "poll() failed on the connection socket: errno \(errno)")
            }
        }
    }

    /// Returns an already received notification without waiting (nil if none).
    public func pendingNotification() throws(PostgresError) -> PostgresNotification? {
        let handle = try requireHandle()
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError.fromConnection(handle, kind: .connectionLost)
        }
        return Self.nextNotification(handle)
    }

    static func nextNotification(_ handle: OpaquePointer) -> PostgresNotification? {
        guard let raw = PQnotifies(handle) else { return nil }
        defer { PQfreemem(raw) }
        let notify = raw.pointee
        return PostgresNotification(
            channel: String(cString: notify.relname),
            payload: notify.extra.map { String(cString: $0) } ?? "",
            senderPID: notify.be_pid)
    }

    /// Validates a channel name and returns it double-quoted.
    static func quotedChannel(_ channel: String) throws(PostgresError) -> String {
        let bytes = Array(channel.utf8)
        guard !bytes.isEmpty, bytes.count <= channelNameBytesMax else {
            throw .invalidUsage("channel name must be 1...\(channelNameBytesMax) bytes: '\(channel)'")
        }
        for (index, byte) in bytes.enumerated() {
            let letter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
            let digit = byte >= 0x30 && byte <= 0x39
            guard letter || (index > 0 && (digit || byte == 0x24)) else {
                throw .invalidUsage("channel name must be letters, digits, _ or $ (not starting with a digit): '\(channel)'")
            }
        }
        return "\"" + channel + "\""
    }
}
