/// Job kinds the payroll handlers serve, and their payloads (JSON objects).
public enum PayrollJobKind {
    /// `{"runId": R}`: plan a run into chunks.
    public static let plan = "run.plan"
    /// `{"runId": R, "version": V, "chunk": N, "from": A, "to": B}`: compute employees A…B.
    public static let chunk = "run.chunk"
    /// `{"employeeId": E, "periodStart": "YYYY-MM-DD", "reason": …}` (written by
    /// `payrun.enqueue_recalculation`): recompute one employee-period.
    public static let recalc = "employee.recalc"
}
