/// Which employees of a run a load covers. Only integers, so COPY statements can be built from
/// them safely (COPY takes no bind parameters).
public enum EmployeeSelection: Sendable, Hashable {
    /// Employee ids `from...to` (a planned chunk).
    case range(from: Int64, to: Int64)
    /// One employee (a recalculation).
    case one(Int64)
    /// Some employees (a batch of recalculations), in any order.
    case ids([Int64])

    var sqlCondition: String {
        switch self {
        case .range(let from, let to): "BETWEEN \(from) AND \(to)"
        case .one(let id): "= \(id)"
        case .ids(let ids): "= ANY('{\(ids.map { String($0) }.joined(separator: ","))}'::bigint[])"
        }
    }

    /// The condition on the child tables' `employee_id` (shifts, contracts, absences), which the
    /// loader ANDs with `= ANY(ids of the employees loaded)`. For `.ids` it is the ids' range: with
    /// only `= ANY(…)` a planner without statistics (right after a bulk import) scans the tenant's
    /// whole shift window through `(tenant_id, employee_id, starts_at)` — 23–46 ms for 32
    /// employees of 3,000 — while the range bounds the index scan (1.3 ms).
    var childSQLCondition: String {
        switch self {
        case .range, .one: sqlCondition
        case .ids(let ids): "BETWEEN \(ids.min() ?? 0) AND \(ids.max() ?? -1)"
        }
    }
}
