import Foundation
import JobQueue
import Logging
import PostgresClient
import Synchronization

/// Runs jobs from `payrun.jobs`:
///
/// - **job threads** (`jobThreads`), each with its own connection, run one job at a time;
/// - the **claimer** (its own connection, which LISTENs on `JobQueue.notificationChannel`) claims
///   min(free threads + `claimAhead`, `claimBatchMax`) jobs with one statement whenever fewer
///   than that are held, then sleeps until a notification or `pollSeconds` (the fallback) when
///   the queue had no more; the jobs wait in the inbox, which every job thread takes from;
/// - the **heartbeat** thread (its own connection) renews the leases of in-flight and inbox jobs
///   every `heartbeatSeconds`, flags in-flight jobs whose lease was lost (`JobContext.shouldStop`)
///   and drops such jobs from the inbox;
/// - the **maintenance** thread (its own connection) rescues expired leases, refreshes the
///   queue-depth gauges and, while it holds the leader lock (`leaderLockKey`, a session
///   advisory lock), runs the periodic tasks;
/// - optionally the **metrics** thread serves `GET /metrics`.
///
/// Every connection reconnects with backoff when lost. `stop()` (thread-safe, e.g. from a
/// signal handler thread) stops claiming, releases claimed-but-unstarted jobs, lets in-flight
/// jobs finish for up to `shutdownGraceSeconds`, releases those still running (their late
/// completion is then fenced off), and makes `run()` return.
///
/// The built-in diagnostics kind `system.sleep` (`SleepJobHandler`) is always handled.
public final class WorkerPool: Sendable {
    /// Session advisory lock key of the periodic-task leader ("payrunwk").
    public static let leaderLockKey: Int64 = 0x7061_7972_756e_776b

    public let configuration: WorkerConfiguration
    public let metrics: WorkerMetrics
    let handlersByKind: [String: any JobHandler]
    let handlerProblems: [String]
    let periodic: [PeriodicTask]
    let logger: Logger
    let state = PoolState()
    private let boundPort = Atomic<Int>(-1)
    private let started = Atomic<Bool>(false)

    public init(
        configuration: WorkerConfiguration, handlers: [any JobHandler], periodic: [PeriodicTask] = [],
        logger: Logger, metrics: WorkerMetrics = WorkerMetrics()
    ) {
        var byKind: [String: any JobHandler] = [:]
        var problems: [String] = []
        for handler in handlers {
            for kind in handler.kinds {
                if byKind[kind] != nil { problems.append("two handlers for job kind \(kind)") }
                byKind[kind] = handler
            }
        }
        if byKind[SleepJobHandler.kind] == nil { byKind[SleepJobHandler.kind] = SleepJobHandler() }
        self.configuration = configuration
        self.handlersByKind = byKind
        self.handlerProblems = problems
        self.periodic = periodic
        var logger = logger
        logger[metadataKey: "worker"] = "\(configuration.workerId)"
        self.logger = logger
        self.metrics = metrics
    }

    /// The job kinds this pool claims.
    public var kinds: [String] { handlersByKind.keys.sorted() }

    /// The port the metrics endpoint listens on once `run()` started it (nil before / without).
    public var metricsPort: Int? {
        let port = boundPort.load(ordering: .acquiring)
        return port >= 0 ? port : nil
    }

    /// Requests shutdown: stop claiming, finish or release in-flight jobs. Thread-safe; returns at once.
    public func stop() {
        state.withLock {
            if !state.stopping { logger.info("stopping: no more claims; finishing in-flight jobs") }
            state.stopping = true
            for entry in state.inFlight.values { entry.flags.shutdown.store(true, ordering: .relaxed) }
            state.condition.broadcast()
        }
    }

    var isStopping: Bool { state.withLock { state.stopping } }
    var isFinished: Bool { state.withLock { state.finished } }

    /// Runs until `stop()`; returns after in-flight jobs finished or were released. Throws only
    /// if it cannot start (bad configuration, database unreachable at start, metrics port taken).
    public func run() throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            throw WorkerError.invalidConfiguration(["run() called twice on one WorkerPool"])
        }
        let problems = configuration.problems + handlerProblems
        guard problems.isEmpty else { throw WorkerError.invalidConfiguration(problems) }
        // Fail fast on a wrong URL; later losses are retried.
        try PostgresConnection(url: configuration.databaseURL).close()
        var endpoint: MetricsEndpoint?
        if let port = configuration.metricsPort {
            endpoint = try MetricsEndpoint(host: configuration.metricsHost, port: port)
            boundPort.store(endpoint?.port ?? -1, ordering: .releasing)
        }
        logger.info("worker starting", metadata: [
            "threads": "\(configuration.jobThreads)", "kinds": "\(kinds.joined(separator: ","))",
            "lease_s": "\(configuration.leaseSeconds)", "metrics_port": "\(endpoint.map { String($0.port) } ?? "off")",
        ])

        let services = DispatchGroup()
        state.withLock { state.liveJobThreads = configuration.jobThreads }
        for index in 0..<configuration.jobThreads {
            spawn("payrun-job-\(index)") { self.jobThreadLoop(index: index) }
        }
        services.enter()
        spawn("payrun-claimer") { self.claimerLoop(); services.leave() }
        services.enter()
        spawn("payrun-heartbeat") { self.heartbeatLoop(); services.leave() }
        services.enter()
        spawn("payrun-maintenance") { self.maintenanceLoop(); services.leave() }
        if let endpoint {
            services.enter()
            spawn("payrun-metrics") {
                endpoint.serve({ self.metrics.render() }, logger: self.logger)
                services.leave()
            }
        }

        // Wait for stop(), then for the job threads within the grace period.
        let abandoned: [ClaimedJob] = state.withLock {
            while !state.stopping { state.condition.wait() }
            let deadline = Date(timeIntervalSinceNow: TimeInterval(configuration.shutdownGraceSeconds))
            while state.liveJobThreads > 0 {
                if !state.condition.wait(until: deadline) { break }
            }
            state.finished = true
            state.condition.broadcast()
            return state.inFlight.values.map(\.job)
        }
        if !abandoned.isEmpty {
            logger.warning("grace period over; releasing jobs still running", metadata: ["jobs": "\(abandoned.map(\.id))"])
            releaseAll(abandoned, role: "shutdown")
        }
        endpoint?.stop()
        if services.wait(timeout: .now() + .seconds(10)) == .timedOut {
            logger.warning("service threads did not stop within 10 s")
        }
        logger.info("worker stopped")
    }

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }

    // MARK: - Claimer

    private func claimerLoop() {
        guard let connection = Reconnect.open(url: configuration.databaseURL, logger: logger, role: "claimer",
                                              keepTrying: { !self.isStopping }) else {
            releaseInbox(on: nil)
            return
        }
        defer { connection.close() }
        var listening = false
        let kinds = self.kinds
        while true {
            let limit: Int? = state.withLock {
                // Busy threads, not in-flight jobs: a batch holds many jobs on one thread. Up to
                // `claimAhead` jobs wait in the inbox beyond the free threads.
                func wanted() -> Int {
                    configuration.jobThreads + configuration.claimAhead - (state.inFlight.count - state.batchExtras) - state.inbox.count
                }
                while !state.stopping && wanted() <= 0 {
                    state.condition.wait()
                }
                if state.stopping { return nil }
                return min(configuration.claimBatchMax, wanted())
            }
            guard let limit else { break }
            do {
                if !listening {
                    try JobQueue.prepareSession(on: connection)
                    try JobQueue.listen(on: connection)
                    listening = true
                }
                let claimStarted = ContinuousClock.now
                let jobs = try JobQueue.claim(on: connection, workerId: configuration.workerId, limit: limit,
                                              leaseSeconds: configuration.leaseSeconds, kinds: kinds)
                if !jobs.isEmpty { metrics.recordClaim(jobs: jobs.count, claimStarted.duration(to: .now)) }
                if !jobs.isEmpty {
                    for job in jobs { metrics.claimed(kind: job.kind) }
                    state.withLock {
                        state.inbox.append(contentsOf: jobs)
                        state.condition.broadcast()
                    }
                }
                // Claim again until a claim comes back empty: a short claim may be due to jobs
                // locked by other claimers, not to an empty queue.
                if !jobs.isEmpty { continue }
                try waitForWork(connection)
            } catch {
                if Reconnect.isConnectionLoss(error, connection: connection) {
                    // reconnect() replays the LISTEN; session settings are redone.
                    guard Reconnect.restore(connection, logger: logger, role: "claimer", keepTrying: { !self.isStopping }) else { break }
                    do { try JobQueue.prepareSession(on: connection) } catch { listening = false }
                } else {
                    logger.error("claim failed", metadata: ["error": "\(error)"])
                    Reconnect.sleep(milliseconds: 1000) { !self.isStopping }
                }
            }
        }
        releaseInbox(on: connection)
    }

    /// Sleeps until a NOTIFY, the poll interval, or stop().
    private func waitForWork(_ connection: PostgresConnection) throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(configuration.pollSeconds))
        while clock.now < deadline && !isStopping {
            if try JobQueue.waitForWakeUp(on: connection, timeout: .milliseconds(100)) { return }
        }
    }

    /// Releases claimed jobs that no thread started (at shutdown).
    private func releaseInbox(on connection: PostgresConnection?) {
        let leftovers: [ClaimedJob] = state.withLock {
            let jobs = state.inbox
            state.inbox = []
            return jobs
        }
        if leftovers.isEmpty { return }
        if let connection {
            var failed: [ClaimedJob] = []
            for job in leftovers {
                do {
                    try JobQueue.release(job, on: connection)
                    metrics.released.increment()
                } catch {
                    failed.append(job)
                }
            }
            if failed.isEmpty {
                logger.info("released unstarted jobs", metadata: ["jobs": "\(leftovers.map(\.id))"])
                return
            }
            releaseAll(failed, role: "claimer")
        } else {
            releaseAll(leftovers, role: "claimer")
        }
    }

    /// Releases jobs on a fresh connection (best effort: unreleased leases expire and are rescued).
    private func releaseAll(_ jobs: [ClaimedJob], role: String) {
        do {
            let connection = try PostgresConnection(url: configuration.databaseURL)
            defer { connection.close() }
            for job in jobs where try JobQueue.release(job, on: connection) {
                metrics.released.increment()
            }
            logger.info("released jobs", metadata: ["jobs": "\(jobs.map(\.id))", "thread": "\(role)"])
        } catch {
            logger.error("could not release jobs; their leases will expire and be rescued",
                         metadata: ["jobs": "\(jobs.map(\.id))", "error": "\(error)"])
        }
    }

    // MARK: - Job threads

    private func jobThreadLoop(index: Int) {
        defer {
            state.withLock {
                state.liveJobThreads -= 1
                state.condition.broadcast()
            }
        }
        guard let connection = Reconnect.open(url: configuration.databaseURL, logger: logger, role: "job-\(index)",
                                              keepTrying: { !self.isStopping }) else { return }
        defer { connection.close() }
        while true {
            let next: (ClaimedJob, JobFlags)? = state.withLock {
                while !state.stopping && state.inbox.isEmpty { state.condition.wait() }
                if state.stopping { return nil }
                let job = state.inbox.removeFirst()
                let flags = JobFlags(shutdown: false)
                state.inFlight[job.id] = (job, flags)
                state.condition.broadcast()
                return (job, flags)
            }
            guard let (job, flags) = next else { return }
            if let batching = handlersByKind[job.kind] as? any BatchJobHandler, batching.batchSize > 1 {
                runBatch(first: job, flags: flags, handler: batching, connection: connection, role: "job-\(index)")
            } else {
                JobExecution(pool: self, connection: connection, job: job, flags: flags, role: "job-\(index)").run()
            }
            state.withLock {
                state.inFlight.removeValue(forKey: job.id)
                state.condition.broadcast()
            }
        }
    }

    // MARK: - Heartbeats

    private func heartbeatLoop() {
        guard let connection = Reconnect.open(url: configuration.databaseURL, logger: logger, role: "heartbeat",
                                              keepTrying: { !self.isFinished }) else { return }
        defer { connection.close() }
        while !isFinished {
            Reconnect.sleep(milliseconds: configuration.heartbeatSeconds * 1000) { !self.isFinished }
            if isFinished { break }
            // The jobs claimed ahead too: one may wait in the inbox for a whole job's duration.
            let jobs = state.withLock { state.inFlight.values.map(\.job) + state.inbox }
            if jobs.isEmpty { continue }
            do {
                let lost = try JobQueue.heartbeat(jobs, on: connection, leaseSeconds: configuration.leaseSeconds)
                for id in lost {
                    let flagged: (job: ClaimedJob, started: Bool)? = state.withLock {
                        if let entry = state.inFlight[id] {
                            entry.flags.leaseLost.store(true, ordering: .relaxed)
                            return (entry.job, true)
                        }
                        // Not started yet: dropped from the inbox, never run under a lost lease.
                        guard let index = state.inbox.firstIndex(where: { $0.id == id }) else { return nil }
                        return (state.inbox.remove(at: index), false)
                    }
                    if let (job, started) = flagged {
                        metrics.leaseLost(kind: job.kind)
                        if started {
                            jobLogger(job).warning("lease lost (expired, rescued or cancelled): this attempt cannot commit")
                        } else {
                            jobLogger(job).warning("lease lost (expired, rescued or cancelled) before the job started: not run here")
                        }
                    }
                }
            } catch {
                if Reconnect.isConnectionLoss(error, connection: connection) {
                    guard Reconnect.restore(connection, logger: logger, role: "heartbeat", keepTrying: { !self.isFinished }) else { break }
                } else {
                    logger.error("heartbeat failed", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    // MARK: - Maintenance: rescue, periodic tasks (leader only), queue depth

    private func maintenanceLoop() {
        guard let connection = Reconnect.open(url: configuration.databaseURL, logger: logger, role: "maintenance",
                                              keepTrying: { !self.isStopping }) else { return }
        defer { connection.close() }
        let clock = ContinuousClock()
        var isLeader = false
        var nextRun: [String: ContinuousClock.Instant] = [:]
        var nextDepth = clock.now
        while !isStopping {
            do {
                let rescued = try JobQueue.rescueExpired(on: connection, backoff: configuration.retryBackoff)
                if rescued > 0 {
                    metrics.rescued.increment(by: Int64(rescued))
                    logger.warning("rescued jobs with expired leases", metadata: ["count": "\(rescued)"])
                }
                if !periodic.isEmpty && !isLeader {
                    isLeader = try connection.queryOne("SELECT pg_try_advisory_lock($1)", [.int(Self.leaderLockKey)])?.bool(at: 0) ?? false
                    if isLeader {
                        logger.info("leader for periodic tasks", metadata: ["tasks": "\(periodic.map(\.name))"])
                        nextRun = [:]  // run everything now: catch up after downtime or a leader change
                    }
                }
                if isLeader {
                    for task in periodic where nextRun[task.name].map({ clock.now >= $0 }) ?? true {
                        nextRun[task.name] = clock.now.advanced(by: .seconds(task.intervalSeconds))
                        do {
                            try task.run(connection)
                            logger.debug("periodic task done", metadata: ["task": "\(task.name)"])
                        } catch {
                            if Reconnect.isConnectionLoss(error, connection: connection) { throw error }
                            logger.error("periodic task failed", metadata: ["task": "\(task.name)", "error": "\(error)"])
                        }
                    }
                }
                // Counting reads the partial indexes: cheap, but not free with a deep queue.
                if clock.now >= nextDepth {
                    nextDepth = clock.now.advanced(by: .seconds(5))
                    let depth = try JobQueue.depth(on: connection)
                    metrics.depthDue.record(depth.due)
                    metrics.depthScheduled.record(depth.scheduled)
                    metrics.depthRunning.record(depth.running)
                }
            } catch {
                if Reconnect.isConnectionLoss(error, connection: connection) {
                    isLeader = false  // a session lock dies with its session
                    guard Reconnect.restore(connection, logger: logger, role: "maintenance", keepTrying: { !self.isStopping }) else { break }
                    continue
                }
                logger.error("maintenance failed", metadata: ["error": "\(error)"])
            }
            Reconnect.sleep(milliseconds: configuration.maintenanceSeconds * 1000) { !self.isStopping }
        }
    }

    /// A logger carrying the job's metadata.
    func jobLogger(_ job: ClaimedJob) -> Logger {
        var logger = self.logger
        logger[metadataKey: "job"] = "\(job.id)"
        logger[metadataKey: "kind"] = "\(job.kind)"
        logger[metadataKey: "tenant"] = "\(job.tenantId)"
        logger[metadataKey: "attempt"] = "\(job.attempt)/\(job.maxAttempts)"
        if let run = Self.runId(inPayload: job.payload) { logger[metadataKey: "run"] = "\(run)" }
        return logger
    }

    /// `runId` (or `run_id`) of a JSON payload, if it has one.
    static func runId(inPayload payload: String) -> Int64? {
        guard payload.contains("run"),
              let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] else { return nil }
        return ((object["runId"] ?? object["run_id"]) as? NSNumber)?.int64Value
    }
}
