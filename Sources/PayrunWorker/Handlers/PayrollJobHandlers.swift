// OWNER: payroll-data helper
import JobQueue
import PayrollStore

/// The payroll job handlers and periodic tasks `payrun worker` runs: `run.plan`, `run.chunk`,
/// `employee.recalc`, and the month-end scheduler.
public enum PayrollJobHandlers {
    /// Employees per chunk when planning (`PAYRUN_CHUNK_EMPLOYEES_MAX` overrides the default 2,000).
    public static var chunkEmployeesMax: Int {
        if let text = ProcessEnvironment.value("PAYRUN_CHUNK_EMPLOYEES_MAX"), let n = Int(text), n > 0 { return n }
        return RunPlanner.chunkEmployeesMaxDefault
    }

    /// Recalculations per batch (`PAYRUN_RECALC_BATCH_MAX` overrides the default 64; 1 turns batching off).
    public static var recalcBatchMax: Int {
        if let text = ProcessEnvironment.value("PAYRUN_RECALC_BATCH_MAX"), let n = Int(text), n > 0 { return n }
        return RecalcJobHandler.batchSizeDefault
    }

    /// How month-end chunk jobs commit (`payrun worker --chunk-commit`; `ChunkCommit`,
    /// `RunChunkJobHandler`): `.async` (the default) does not wait for the WAL flush, `.sync` does.
    public static func all(chunkCommit: ChunkCommit = .async) -> [any JobHandler] {
        [RunPlanJobHandler(chunkEmployeesMax: chunkEmployeesMax), RunChunkJobHandler(commit: chunkCommit),
         RecalcJobHandler(batchSize: recalcBatchMax)]
    }

    /// The `employee.recalc` handler alone, batching up to `batchSize` jobs (benchmarks, tests).
    public static func recalculation(batchSize: Int = recalcBatchMax) -> any JobHandler { RecalcJobHandler(batchSize: batchSize) }

    public static func periodic() -> [PeriodicTask] { [MonthEndTask.task()] }
}
