/// `payroll_runs.status` (sql/migrations/0001_schema.sql).
public enum PayrollRunStatus: String, Sendable, CaseIterable {
    case planned, calculating, calculated
    case calculatedWithErrors = "calculated_with_errors"
    case approved, failed, cancelled

    /// Approved runs are locked; cancelled runs are dead. Neither is ever computed again.
    public var isClosed: Bool { self == .approved || self == .cancelled }
}
