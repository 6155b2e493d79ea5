import JobQueue
#if canImport(Glibc)
import Glibc
#endif

/// How a `WorkerPool` runs. Times are whole seconds.
public struct WorkerConfiguration: Sendable {
    /// libpq URL; nil: `DATABASE_URL` / the libpq environment.
    public var databaseURL: String?
    /// Job threads, each with its own connection (default: the number of cores).
    public var jobThreads: Int
    /// Most jobs claimed by one statement (the claim takes min(free threads + `claimAhead`, this)).
    public var claimBatchMax: Int
    /// Jobs claimed ahead of the job threads: held (leased, renewed by the heartbeat) until a
    /// thread is free, so a thread that finishes a job starts the next one at once instead of
    /// waiting for a claim statement and its commit (≈ 2–7 ms on this VM, per job). 0: claim only
    /// for free threads. Another worker process can take such a job only after this one releases it.
    public var claimAhead: Int
    /// Lease length; heartbeats renew it.
    public var leaseSeconds: Int
    /// Heartbeat period; must be shorter than the lease (a third of it is a good value).
    public var heartbeatSeconds: Int
    /// Idle claimers re-check this often even without a notification.
    public var pollSeconds: Int
    /// After stop(): how long in-flight jobs may run before they are released.
    public var shutdownGraceSeconds: Int
    /// Port for `GET /metrics` on `metricsHost`; nil: no endpoint; 0: any free port.
    public var metricsPort: Int?
    /// Address the metrics endpoint binds (default loopback).
    public var metricsHost: String
    /// Worker id in `jobs.leased_by` and logs (default `<hostname>:<pid>`).
    public var workerId: String
    /// Rescue of expired leases and the periodic-task schedule are checked this often.
    public var maintenanceSeconds: Int
    /// Delay before a failed attempt or an expired lease is retried.
    public var retryBackoff: RetryBackoff

    public init(
        databaseURL: String? = nil, jobThreads: Int = WorkerConfiguration.coreCount, claimBatchMax: Int = 32,
        leaseSeconds: Int = 30, heartbeatSeconds: Int = 10, pollSeconds: Int = 5, shutdownGraceSeconds: Int = 30,
        metricsPort: Int? = nil, metricsHost: String = "127.0.0.1", workerId: String = WorkerConfiguration.defaultWorkerId,
        maintenanceSeconds: Int = 1, retryBackoff: RetryBackoff = .standard, claimAhead: Int = 1
    ) {
        self.databaseURL = databaseURL
        self.jobThreads = jobThreads
        self.claimBatchMax = claimBatchMax
        self.claimAhead = claimAhead
        self.leaseSeconds = leaseSeconds
        self.heartbeatSeconds = heartbeatSeconds
        self.pollSeconds = pollSeconds
        self.shutdownGraceSeconds = shutdownGraceSeconds
        self.metricsPort = metricsPort
        self.metricsHost = metricsHost
        self.workerId = workerId
        self.maintenanceSeconds = maintenanceSeconds
        self.retryBackoff = retryBackoff
    }

    /// Problems that make the configuration unusable, as messages (empty: fine).
    public var problems: [String] {
        var problems: [String] = []
        if jobThreads < 1 || jobThreads > 1024 { problems.append("jobThreads must be 1...1024, got \(jobThreads)") }
        if claimBatchMax < 1 { problems.append("claimBatchMax must be ≥ 1, got \(claimBatchMax)") }
        if claimAhead < 0 || claimAhead > 1024 { problems.append("claimAhead must be 0...1024, got \(claimAhead)") }
        if leaseSeconds < 1 { problems.append("leaseSeconds must be ≥ 1, got \(leaseSeconds)") }
        if heartbeatSeconds < 1 || heartbeatSeconds >= max(leaseSeconds, 2) {
            problems.append("heartbeatSeconds must be ≥ 1 and shorter than the lease (\(leaseSeconds) s), got \(heartbeatSeconds)")
        }
        if pollSeconds < 1 { problems.append("pollSeconds must be ≥ 1, got \(pollSeconds)") }
        if shutdownGraceSeconds < 0 { problems.append("shutdownGraceSeconds must be ≥ 0, got \(shutdownGraceSeconds)") }
        if maintenanceSeconds < 1 { problems.append("maintenanceSeconds must be ≥ 1, got \(maintenanceSeconds)") }
        if let port = metricsPort, port < 0 || port > 65535 { problems.append("metricsPort must be 0...65535, got \(port)") }
        return problems
    }

    /// Online processors.
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// `<hostname>:<pid>`.
    public static var defaultWorkerId: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let host = gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "worker"
        return "\(host):\(getpid())"
    }
}
