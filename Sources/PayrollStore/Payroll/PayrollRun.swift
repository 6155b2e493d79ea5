import PayrollRules
import PostgresClient

/// One row of `payrun.payroll_runs`: a pay period of one workplace.
public struct PayrollRun: Sendable, Hashable {
    public var tenantId: Int64
    public var id: Int64
    public var workplaceId: Int64
    public var periodStart: LocalDate
    /// Inclusive.
    public var periodEnd: LocalDate
    public var payDate: LocalDate
    public var status: PayrollRunStatus
    public var version: Int32
    public var fiveOrMore: Bool
    public var employeesTotal: Int32
    public var employeesDone: Int32
    public var employeesFailed: Int32
    public var warningsCount: Int32
    public var chunksTotal: Int32
    public var chunksDone: Int32
    public var grossWon: Int64?
    public var netWon: Int64?
    public var totalDeductionsWon: Int64?
    /// Hex of the run's input digest once calculated.
    public var inputDigestHex: String?

    static let columns = """
        tenant_id, id, workplace_id, period_start, period_end, pay_date, status, version, size_class,
        employees_total, employees_done, employees_failed, warnings_count, chunks_total, chunks_done,
        gross_won, net_won, total_deductions_won, encode(input_digest, 'hex')
        """

    init(row: PostgresRow) throws {
        tenantId = try row.int64(at: 0)
        id = try row.int64(at: 1)
        workplaceId = try row.int64(at: 2)
        periodStart = DateConversion.localDate(try row.date(at: 3))
        periodEnd = DateConversion.localDate(try row.date(at: 4))
        payDate = DateConversion.localDate(try row.date(at: 5))
        let statusText = try row.string(at: 6)
        guard let status = PayrollRunStatus(rawValue: statusText) else {
            throw PayrollStoreError(.invalidState, "run \(id) has an unknown status '\(statusText)'")
        }
        self.status = status
        version = try row.int32(at: 7)
        fiveOrMore = try row.string(at: 8) == "five_or_more"
        employeesTotal = try row.int32(at: 9)
        employeesDone = try row.int32(at: 10)
        employeesFailed = try row.int32(at: 11)
        warningsCount = try row.int32(at: 12)
        chunksTotal = try row.int32(at: 13)
        chunksDone = try row.int32(at: 14)
        grossWon = try row.decode(Int64?.self, at: 15)
        netWon = try row.decode(Int64?.self, at: 16)
        totalDeductionsWon = try row.decode(Int64?.self, at: 17)
        inputDigestHex = try row.decode(String?.self, at: 18)
    }

    /// The run `id` of the transaction's tenant, optionally locking its row: `FOR UPDATE`, or
    /// `FOR KEY SHARE` (`keyShare`: recalculations, which must not block each other but must wait
    /// for a chunk completion or planning holding `FOR UPDATE`).
    public static func fetch(tenantId: Int64, runId: Int64, forUpdate: Bool = false, keyShare: Bool = false,
                             on connection: PostgresConnection) throws -> PayrollRun? {
        let lock = forUpdate ? " FOR UPDATE" : (keyShare ? " FOR KEY SHARE" : "")
        return try connection.queryOne(
            "SELECT \(columns) FROM payrun.payroll_runs WHERE tenant_id = $1 AND id = $2\(lock)",
            [.int(tenantId), .int(runId)]
        ).map { try PayrollRun(row: $0) }
    }

    /// Runs of the tenant, newest period first (`payrun runs list`).
    public static func list(tenantId: Int64, limit: Int = 100, on connection: PostgresConnection) throws -> [PayrollRun] {
        try connection.query(
            "SELECT \(columns) FROM payrun.payroll_runs WHERE tenant_id = $1 ORDER BY period_start DESC, workplace_id, id LIMIT $2",
            [.int(tenantId), .int(Int64(limit))]
        ).map { try PayrollRun(row: $0) }
    }
}
