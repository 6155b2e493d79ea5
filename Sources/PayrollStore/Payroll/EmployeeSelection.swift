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
}
