/// Job kinds the payroll handlers serve, and their payloads (JSON objects).
public enum PayrollJobKind {
    /// `{"runIds": [R, …]}`: plan a tenant's runs, packing their chunks into shared chunk jobs
    /// (`RunPlanner.planMany`); `{"runId": R}`: plan one run (`RunPlanner.plan`).
    public static let plan = "run.plan"
    /// `{"parts": [{"runId": R, "version": V, "chunk": N, "from": A, "to": B}, …]}`: compute each
    /// part's employees A…B of run R (`ChunkProcessor.processParts`); the single-part payload
    /// `{"runId": R, "version": V, "chunk": N, "from": A, "to": B}` is still served.
    public static let chunk = "run.chunk"
    /// `{"employeeId": E, "periodStart": "YYYY-MM-DD", "reason": …}` (written by
    /// `payrun.enqueue_recalculation`): recompute one employee-period.
    public static let recalc = "employee.recalc"
}
