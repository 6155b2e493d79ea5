import ArgumentParser
import JobQueue
import PostgresClient

/// `payrun jobs`: look at and steer the job queue.
struct JobsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "List, show, retry, cancel or enqueue jobs.",
        discussion: """
            Jobs live in payrun.jobs: pending → running → succeeded, or back to pending
            after a failed attempt (exponential backoff with jitter), failed after the
            last attempt (every attempt's error is kept), or cancelled. Connect as a role
            that sees every tenant's jobs (payrun_worker, the schema owner or a
            superuser).
            """,
        subcommands: [JobsListCommand.self, JobsShowCommand.self, JobsRetryCommand.self, JobsCancelCommand.self,
                      JobsEnqueueCommand.self]
    )
}

struct JobsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List jobs, newest first, with the queue's depth.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Only jobs in this state: pending, running, succeeded, failed, cancelled.") var state: String?
    @Option(help: "Only jobs of this kind.") var kind: String?
    @Option(help: "Only jobs of this tenant (0: jobs without a tenant).") var tenant: Int64?
    @Option(help: "At most this many.") var limit: Int = 50

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        let jobs: [JobRecord]
        do {
            jobs = try JobQueue.list(JobFilter(state: state, kind: kind, tenantId: tenant, limit: limit), on: connection)
        } catch let error as JobQueueError {
            throw CommandFailure("\(error)")
        }
        print(JobsTable.header)
        for job in jobs { print(JobsTable.row(job)) }
        let depth = try JobQueue.depth(on: connection)
        print("queue: \(depth.due) due, \(depth.scheduled) scheduled, \(depth.running) running (\(depth.expired) with expired lease)")
    }
}

struct JobsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one job: state, lease, payload and every attempt's error.")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "Job id.") var id: Int64

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        let job: JobRecord
        do { job = try JobQueue.show(id: id, on: connection) } catch let error as JobQueueError { throw CommandFailure("\(error)") }
        let lines: [(String, String)] = [
            ("id", "\(job.id)"), ("kind", job.kind), ("tenant", job.tenantId == 0 ? "-" : "\(job.tenantId)"),
            ("state", job.state), ("priority", "\(job.priority)"), ("attempts", "\(job.attempts)/\(job.maxAttempts)"),
            ("dedup key", job.dedupKey ?? "-"), ("created", "\(job.createdAt)"), ("run at", "\(job.runAt)"),
            ("started", job.startedAt.map { "\($0)" } ?? "-"), ("finished", job.finishedAt.map { "\($0)" } ?? "-"),
            ("leased by", job.leasedBy ?? "-"), ("leased until", job.leasedUntil.map { "\($0)" } ?? "-"),
            ("heartbeat", job.heartbeatAt.map { "\($0)" } ?? "-"), ("payload", job.payload), ("errors", job.errors),
        ]
        for (name, value) in lines { print(name.padding(toLength: 13, withPad: " ", startingAt: 0) + value) }
    }
}

struct JobsRetryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Run a failed or cancelled job again (fresh attempt budget), or a pending one now.")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "Job id.") var id: Int64

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        do { try JobQueue.retry(id: id, on: connection) } catch let error as JobQueueError { throw CommandFailure("\(error)") }
        print("job \(id) is pending")
    }
}

struct JobsCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a pending or running job (a running job's worker can then commit nothing).")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "Job id.") var id: Int64
    @Option(help: "Recorded in the job's errors.") var reason: String?

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        let was: String
        do { was = try JobQueue.cancel(id: id, reason: reason, on: connection) } catch let error as JobQueueError {
            throw CommandFailure("\(error)")
        }
        print("job \(id) cancelled (was \(was))")
    }
}

struct JobsEnqueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Enqueue one job (diagnostics, e.g. --kind system.sleep --payload '{\"ms\": 100}').")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Job kind (dotted lower-case words).") var kind: String
    @Option(help: "Tenant id (0: none).") var tenant: Int64 = 0
    @Option(help: "JSON object.") var payload: String = "{}"
    @Option(name: .customLong("dedup-key"), help: "Deduplication key.") var dedupKey: String?
    @Option(name: .customLong("max-attempts"), help: "Attempts before the job fails for good.") var maxAttempts: Int = 5

    func run() throws {
        let connection = try database.connect()
        defer { connection.close() }
        let outcome: EnqueueOutcome
        do {
            outcome = try JobQueue.enqueue(
                NewJob(kind: kind, tenantId: tenant, payload: payload, dedupKey: dedupKey, maxAttempts: maxAttempts), on: connection)
        } catch let error as JobQueueError {
            throw CommandFailure("\(error)")
        } catch let error as PostgresError {
            throw CommandFailure("enqueue refused: \(error.message)")
        }
        switch outcome {
        case .inserted(let id): print("job \(id) enqueued")
        case .deduplicated(let id): print("job \(id) already pending with this dedup key")
        }
    }
}

enum JobsTable {
    static let header = pad("id", 10) + pad("kind", 20) + pad("tenant", 8) + pad("state", 10) + pad("tries", 7) + "last error"

    static func row(_ job: JobRecord) -> String {
        pad("\(job.id)", 10) + pad(job.kind, 20) + pad(job.tenantId == 0 ? "-" : "\(job.tenantId)", 8) + pad(job.state, 10)
            + pad("\(job.attempts)/\(job.maxAttempts)", 7) + (job.lastError.map { String($0.prefix(60)) } ?? "")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
