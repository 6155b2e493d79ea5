/// Errors that stop a `WorkerPool` from starting.
public enum WorkerError: Error, CustomStringConvertible {
    case invalidConfiguration([String])
    case metricsEndpoint(String)
    case duplicateHandler(kind: String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let problems): return "invalid worker configuration: " + problems.joined(separator: "; ")
        case .metricsEndpoint(let message): return "metrics endpoint: \(message)"
        case .duplicateHandler(let kind): return "two handlers for job kind \(kind)"
        }
    }
}
