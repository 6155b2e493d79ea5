import ArgumentParser
import Foundation
import JobQueue
import Logging
import PayrollStore
import PayrunWorker
import PostgresClient
#if canImport(Glibc)
import Glibc
#endif

/// `payrun worker`: runs jobs until SIGTERM/SIGINT.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run jobs from the queue until SIGTERM or SIGINT.",
        discussion: """
            Starts N job threads (default: the number of cores), each with its own
            PostgreSQL connection, plus a claimer that LISTENs for new jobs (polling as
            the fallback), a heartbeat thread renewing leases, and a maintenance thread
            that rescues expired leases and, on the one worker holding the leader lock,
            runs periodic tasks (month-end). Lost connections are re-established with
            backoff.

            On SIGTERM or SIGINT the worker stops claiming, lets in-flight jobs finish for
            up to --grace-seconds, releases what is left (a late completion is fenced
            off), and exits 0. A second signal exits at once with status 1.

            Logs go to stderr (swift-log; metadata: worker, job, kind, tenant, attempt,
            run). With --metrics-port, GET http://<metrics-host>:<port>/metrics serves
            Prometheus metrics: jobs claimed/completed/failed, job duration, employees
            computed, queue depth.

            Besides the payroll job kinds, every worker handles the diagnostics kind
            system.sleep (payload {"ms": N}): it sleeps, then records its effect in
            payrun.diagnostic_job_effects and completes, fenced by its lease.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("Job threads, each with its own connection (default: number of cores).", valueName: "n"))
    var threads: Int?

    @Option(name: .customLong("metrics-port"), help: ArgumentHelp("Serve GET /metrics on this port (0: any free port).", valueName: "port"))
    var metricsPort: Int?

    @Option(name: .customLong("metrics-host"), help: ArgumentHelp("Address for the metrics endpoint.", valueName: "ipv4"))
    var metricsHost: String = "127.0.0.1"

    @Option(name: .customLong("lease-seconds"), help: "Lease of a claimed job; heartbeats renew it.")
    var leaseSeconds: Int = 30

    @Option(name: .customLong("heartbeat-seconds"), help: "Heartbeat period (shorter than the lease).")
    var heartbeatSeconds: Int = 10

    @Option(name: .customLong("poll-seconds"), help: "Idle re-check period when no notification arrives.")
    var pollSeconds: Int = 5

    @Option(name: .customLong("grace-seconds"), help: "How long in-flight jobs may finish after SIGTERM/SIGINT.")
    var graceSeconds: Int = 30

    @Option(name: .customLong("claim-batch"), help: "Most jobs claimed by one statement.")
    var claimBatch: Int = 32

    @Option(name: .customLong("claim-ahead"), help: "Jobs claimed ahead of the job threads, so a thread that finishes a job starts the next at once (0: claim only for free threads).")
    var claimAhead: Int = 1

    @Option(name: .customLong("chunk-commit"), help: ArgumentHelp(
        "How month-end chunk jobs commit: async (no wait for the WAL flush; a server crash may lose the chunk jobs of its last moments, whose leases are then rescued and the same payslips computed again) or sync (wait for the flush).",
        valueName: "async|sync"))
    var chunkCommit: ChunkCommit = .async

    @Option(name: .customLong("worker-id"), help: ArgumentHelp("Worker id in jobs.leased_by and logs (default: host:pid).", valueName: "id"))
    var workerId: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func run() throws {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown --log-level \(logLevel)")
        }
        let url = try database.resolvedURL()
        // Signals are taken by one thread with sigwait: block them before any thread starts.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "payrun.worker")
        let metrics = WorkerMetrics()
        metrics.bootstrapMetricsSystem()
        let configuration = WorkerConfiguration(
            databaseURL: url, jobThreads: threads ?? WorkerConfiguration.coreCount, claimBatchMax: claimBatch,
            leaseSeconds: leaseSeconds, heartbeatSeconds: heartbeatSeconds, pollSeconds: pollSeconds,
            shutdownGraceSeconds: graceSeconds, metricsPort: metricsPort, metricsHost: metricsHost,
            workerId: workerId ?? WorkerConfiguration.defaultWorkerId, claimAhead: claimAhead)
        let pool = WorkerPool(configuration: configuration, handlers: PayrollJobHandlers.all(chunkCommit: chunkCommit),
                              periodic: PayrollJobHandlers.periodic(), logger: logger, metrics: metrics)
        let blocked = signals
        let signalThread = Thread {
            var set = blocked
            var received: Int32 = 0
            sigwait(&set, &received)
            logger.notice("signal \(received): shutting down")
            pool.stop()
            sigwait(&set, &received)
            logger.critical("second signal \(received): exiting now")
            Glibc.exit(1)
        }
        signalThread.start()
        logPayslipPath(url: url, logger: logger)
        do {
            try pool.run()
        } catch let error as WorkerError {
            throw CommandFailure("\(error)")
        } catch {
            throw CommandFailure("cannot start the worker at \(DatabaseOptions.redacted(url)): \(error)")
        }
    }

    /// Says at start how this worker's sessions write a first calculation's payslips, so that an
    /// operator sees a worker under row-level security that lacks `payrun_payslip_writer` (0022:
    /// created only when a superuser migrates) taking the slower array insert. Best effort: a
    /// database not reachable or not migrated yet is left to the pool's start.
    func logPayslipPath(url: String, logger: Logger) {
        guard let connection = try? PostgresConnection(url: url) else { return }
        defer { connection.close() }
        guard let path = try? PayslipWriter.firstCalculationPath(on: connection) else { return }
        if !path.rowSecurityActive {
            logger.info("payslips of a first calculation: COPY into payrun.payslips as this session's role (row-level security does not apply to it)")
        } else if path.asWriterRole {
            logger.info("payslips of a first calculation: COPY into payrun.payslips as payrun_payslip_writer (row-level security applies to this session's role)")
        } else {
            logger.notice("payslips of a first calculation: inserted from column arrays, slower than COPY — row-level security applies to this session's role and payrun_payslip_writer is missing or not its to use (see migration 0022: a superuser creates it)")
        }
    }
}

extension ChunkCommit: ExpressibleByArgument {}
