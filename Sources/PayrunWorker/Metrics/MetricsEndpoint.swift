import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny blocking HTTP/1.0 server on one thread: `GET /metrics` answers the Prometheus text
/// format, anything else 404. One request per connection; enough for a scraper.
final class MetricsEndpoint: Sendable {
    let socketDescriptor: Int32
    /// The bound port (useful with port 0).
    let port: Int
    private let stopped = Atomic<Bool>(false)

    /// Binds and listens; throws `WorkerError.metricsEndpoint` if the address is unusable.
    init(host: String, port: Int) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw WorkerError.metricsEndpoint("socket() failed: errno \(errno)") }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(descriptor)
            throw WorkerError.metricsEndpoint("not an IPv4 address: \(host)")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw WorkerError.metricsEndpoint("cannot listen on \(host):\(port): errno \(code)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        socketDescriptor = descriptor
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    /// Serves until `stop()`; call on its own thread.
    func serve(_ render: () -> String, logger: Logger) {
        while !stopped.load(ordering: .relaxed) {
            var poller = pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready <= 0 { continue }
            let client = accept(socketDescriptor, nil, nil)
            if client < 0 { continue }
            handle(client, render)
            close(client)
        }
        close(socketDescriptor)
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private func handle(_ client: Int32, _ render: () -> String) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while request.count < 16_384 {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            request += buffer[0..<count]
            if request.count >= 4, request.suffix(4) == [13, 10, 13, 10] { break }
            if request.contains(10) && request.starts(with: Array("GET ".utf8)) == false { break }
        }
        let line = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        let status: String
        let body: String
        let contentType: String
        if parts.count >= 2, parts[0] == "GET", parts[1] == "/metrics" || parts[1].hasPrefix("/metrics?") {
            status = "200 OK"
            body = render()
            contentType = "text/plain; version=0.0.4; charset=utf-8"
        } else {
            status = "404 Not Found"
            body = "only GET /metrics is served here\n"
            contentType = "text/plain; charset=utf-8"
        }
        let bodyBytes = Array(body.utf8)
        let head = "HTTP/1.0 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(bodyBytes.count)\r\nConnection: close\r\n\r\n"
        let response = Array(head.utf8) + bodyBytes
        var sent = 0
        while sent < response.count {
            let count = response[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break }
            sent += count
        }
    }
}
