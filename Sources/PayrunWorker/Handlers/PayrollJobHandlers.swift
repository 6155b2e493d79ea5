// OWNER: payroll-data helper
import JobQueue

/// The payroll job handlers and periodic tasks `payrun worker` runs. Provided by the
/// payroll-data helper; the queue-worker branch leaves them empty.
public enum PayrollJobHandlers {
    public static func all() -> [any JobHandler] { [] }
    public static func periodic() -> [PeriodicTask] { [] }
}
