import CoreMetrics
import Metrics
import Prometheus
import Synchronization

/// The worker's metrics, created through swift-metrics with a Prometheus factory whose registry
/// the `/metrics` endpoint renders:
/// - `payrun_jobs_claimed_total{kind}`, `payrun_jobs_completed_total{kind}`,
///   `payrun_jobs_failed_total{kind,final}` (final="true" when the job is failed for good),
///   `payrun_jobs_lease_lost_total{kind}`, `payrun_jobs_released_total`, `payrun_jobs_rescued_total`
/// - `payrun_job_duration_seconds{kind}` (histogram)
/// - `payrun_employees_computed_total`
/// - `payrun_queue_depth{state="due"|"scheduled"|"running"}` (gauge, refreshed by maintenance)
public final class WorkerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    let employeesComputed: CoreMetrics.Counter
    let released: CoreMetrics.Counter
    let rescued: CoreMetrics.Counter
    let depthDue: CoreMetrics.Gauge
    let depthScheduled: CoreMetrics.Gauge
    let depthRunning: CoreMetrics.Gauge
    private let counters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let timers = Mutex<[String: CoreMetrics.Timer]>([:])
    private let totals = Mutex<WorkerTimeTotals>(WorkerTimeTotals())

    /// Metrics in `registry` (a fresh one by default, so several pools in one process — tests —
    /// do not share counts).
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
            .milliseconds(500), .seconds(1), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(300),
        ]
        self.factory = factory
        employeesComputed = CoreMetrics.Counter(label: "payrun_employees_computed_total", factory: factory)
        released = CoreMetrics.Counter(label: "payrun_jobs_released_total", factory: factory)
        rescued = CoreMetrics.Counter(label: "payrun_jobs_rescued_total", factory: factory)
        depthDue = CoreMetrics.Gauge(label: "payrun_queue_depth", dimensions: [("state", "due")], factory: factory)
        depthScheduled = CoreMetrics.Gauge(label: "payrun_queue_depth", dimensions: [("state", "scheduled")], factory: factory)
        depthRunning = CoreMetrics.Gauge(label: "payrun_queue_depth", dimensions: [("state", "running")], factory: factory)
    }

    func counter(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Counter {
        let key = label + dimensions.map { "|\($0.0)=\($0.1)" }.joined()
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
            counters[key] = counter
            return counter
        }
    }

    func claimed(kind: String) { counter("payrun_jobs_claimed_total", [("kind", kind)]).increment() }
    func completed(kind: String) { counter("payrun_jobs_completed_total", [("kind", kind)]).increment() }
    func failed(kind: String, final: Bool) {
        counter("payrun_jobs_failed_total", [("kind", kind), ("final", final ? "true" : "false")]).increment()
    }
    func leaseLost(kind: String) { counter("payrun_jobs_lease_lost_total", [("kind", kind)]).increment() }

    func recordDuration(kind: String, _ duration: Duration) {
        let timer = timers.withLock { timers in
            if let timer = timers[kind] { return timer }
            let timer = CoreMetrics.Timer(label: "payrun_job_duration_seconds", dimensions: [("kind", kind)], factory: factory)
            timers[kind] = timer
            return timer
        }
        timer.record(duration: duration)
        totals.withLock { $0.jobs[kind, default: .init()].add(duration) }
    }

    /// A claim statement that returned `jobs` jobs took `duration` (claims that found nothing are not counted).
    func recordClaim(jobs: Int, _ duration: Duration) {
        totals.withLock {
            $0.claims.add(duration)
            $0.jobsClaimed += jobs
        }
    }

    /// Time spent so far in claims and in each job kind's attempts, summed over threads
    /// (`payrun bench` reports its phases from these).
    public var timeTotals: WorkerTimeTotals { totals.withLock { $0 } }

    /// Makes this registry the process-wide swift-metrics backend too, so metrics that handlers
    /// create with plain `Counter(label:)` appear on `/metrics`. Call once per process (the CLI
    /// does); swift-metrics refuses a second bootstrap.
    public func bootstrapMetricsSystem() {
        MetricsSystem.bootstrap(factory)
    }

    /// The Prometheus text exposition of every metric.
    public func render() -> String { registry.emitToString() }
}

/// Summed wall time of a pool's claims and job attempts (for benchmarks).
public struct WorkerTimeTotals: Sendable {
    public struct Sum: Sendable {
        public var count = 0
        public var total: Duration = .zero
        mutating func add(_ d: Duration) { count += 1; total += d }
    }
    /// Claim statements that returned at least one job.
    public var claims = Sum()
    /// Jobs those claims returned.
    public var jobsClaimed = 0
    /// Attempts per job kind: handler plus the pool's completion check.
    public var jobs: [String: Sum] = [:]
}
