/// What a seed wrote: row counts per table (equal to the tables' counts for the new tenants) and
/// how long it took.
public struct SeedSummary: Sendable {
    public var tenantIds: [Int64]
    public var workplaces: Int
    public var employees: Int
    public var contracts: Int
    public var shifts: Int
    public var absences: Int
    /// Wall time of the whole seed, ANALYZE and index builds included.
    public var elapsed: Duration
    /// Company holiday rows (`workplace_holidays`: additions and withdrawals).
    public var workplaceHolidays: Int = 0
    /// Of `elapsed`, the time ANALYZE took.
    public var analyzeElapsed: Duration = .zero
    /// Of `elapsed`, the time spent rebuilding the indexes and constraints dropped for the load
    /// and validating the foreign keys (`SeedBulkLoad`).
    public var restoreElapsed: Duration = .zero
    /// Where the time went, phase by phase (generation, each table's COPY, ANALYZE, each restored
    /// index or constraint).
    public var phases: [SeedPhaseTiming] = []

    /// Rows written, all tables.
    public var rows: Int { tenantIds.count + workplaces + workplaceHolidays + employees + contracts + shifts + absences }

    public init(tenantIds: [Int64], workplaces: Int, employees: Int, contracts: Int, shifts: Int, absences: Int,
                elapsed: Duration) {
        self.tenantIds = tenantIds
        self.workplaces = workplaces
        self.employees = employees
        self.contracts = contracts
        self.shifts = shifts
        self.absences = absences
        self.elapsed = elapsed
    }
}
