import PayrollRules
import PostgresClient

/// Generates a synthetic store (`SeedSpec`) straight into PostgreSQL by binary COPY: new tenants,
/// their workplaces (5인 이상 and 미만, week starts, pay days, `month_end_day` so the worker's
/// month-end scheduler picks them up, a few company holidays), employees, contracts, a month of
/// shifts with the weeks around it, and absences. See `SeedGenerator` for the mix.
///
/// - Rows are streamed in blocks of a few thousand employees: memory stays bounded whatever the
///   size of the store.
/// - Everything is written in **one transaction**: a failed seed leaves nothing behind. The seeded
///   tables are ANALYZEd in it (month-end planning needs statistics); `vacuum(on:)` after the seed
///   also sets hint bits and the visibility map (worth it before a benchmark).
/// - Ids: new tenants after the largest existing tenant id; every other id continues the table's
///   identity sequence, which is then moved past the ids used, so later inserts do not collide.
///   The employees of one workplace have contiguous ids.
/// - **Connect as a superuser or a role with BYPASSRLS.** PostgreSQL refuses `COPY FROM` into a
///   table whose row-level security applies to the role, and 0002 FORCEs it even for the owner.
public enum StoreSeeder {
    /// Employees per block (one COPY per table per block).
    static let blockEmployees = 10_000

    /// The tables seeded, in foreign-key order.
    public static let tables = ["tenants", "workplaces", "workplace_holidays", "employees", "contracts", "shifts", "absences"]

    public static func seed(_ spec: SeedSpec, on connection: PostgresConnection,
                            progress: ((SeedProgress) -> Void)? = nil) throws -> SeedSummary {
        try spec.validate()
        let clock = ContinuousClock()
        let started = clock.now
        try checkPrerequisites(on: connection)
        func report(_ phase: String, _ written: Int) {
            progress?(SeedProgress(phase: phase, employeesWritten: written, employeesTotal: spec.employees))
        }
        report("prepare", 0)

        let bases = try idBases(on: connection)
        let layout = SeedLayout(spec: spec, tenantIdBase: bases.tenant, workplaceIdBase: bases.workplace)
        var generator = SeedGenerator(spec: spec, layout: layout, employeeIdBase: bases.employee,
                                      contractIdBase: bases.contract, shiftIdBase: bases.shift, absenceIdBase: bases.absence)
        let createdAt = generator.createdAtMicroseconds
        var summary = SeedSummary(tenantIds: layout.tenants.map(\.id), workplaces: layout.workplaces.count,
                                  employees: spec.employees, contracts: 0, shifts: 0, absences: 0, elapsed: .zero)

        var phases = SeedPhaseClock()
        let rebuildIndexes = try shiftsAtMost(spec.employees * spec.shiftsPerEmployee, on: connection)
        try connection.transaction { c in
            let restores = try phases.measure("prepare") { try SeedBulkLoad.prepare(rebuildIndexes: rebuildIndexes, on: c) }
            report("tenants", 0)
            try phases.measure("copy tenants") { try c.copyIn(SeedCopy.tenants) { writer in
                for t in layout.tenants {
                    try writer.row { r in
                        r.int64(t.id)
                        r.text("합성 사업주 \(t.ordinal + 1) (seed \(spec.seed))")
                        r.timestamptz(microsecondsSince2000: createdAt)
                    }
                }
            } }
            report("workplaces", 0)
            try phases.measure("copy workplaces") { try c.copyIn(SeedCopy.workplaces) { writer in
                for w in layout.workplaces {
                    try writer.row { r in
                        r.int64(w.tenantId)
                        r.int64(w.id)
                        r.text("\(w.number)호점")
                        r.text(w.fiveOrMore ? "five_or_more" : "under_five")
                        r.text(w.weekStart.key)
                        if let day = w.payDayOfMonth { r.int16(Int16(day)) } else { r.null() }
                        r.int16(Int16(w.monthEndDay))
                        r.timestamptz(microsecondsSince2000: createdAt)
                    }
                }
            } }
            summary.workplaceHolidays = try phases.measure("copy workplace_holidays") { try c.copyIn(SeedCopy.workplaceHolidays) { writer in
                for w in layout.workplaces {
                    if let day = w.companyHoliday {
                        try writer.row { r in
                            r.int64(w.tenantId); r.int64(w.id); r.date(daysSince2000: SeedCopy.date(day)); r.bool(true)
                            r.text("company"); r.text("창립기념일")
                        }
                    }
                    if let day = w.withdrawnHoliday {
                        try writer.row { r in
                            r.int64(w.tenantId); r.int64(w.id); r.date(daysSince2000: SeedCopy.date(day)); r.bool(false)
                            r.text("substitute"); r.text("휴일대체 (근로일로 변경)")
                        }
                    }
                }
            } }

            var w = 0
            while w < layout.workplaces.count {
                var end = w
                var employees = 0
                while end < layout.workplaces.count, employees < blockEmployees {
                    employees += layout.workplaces[end].employeeCount
                    end += 1
                }
                let block = phases.measure("generate") { generator.block(workplaces: w..<end) }
                try write(block, createdAt: createdAt, phases: &phases, on: c)
                summary.contracts += block.contracts.count
                summary.shifts += block.shifts.count
                summary.absences += block.absences.count
                report("rows", block.employeesEnd)
                w = end
            }
            // ANALYZE inside the transaction (it counts this transaction's rows): the planner then
            // knows the sizes when the foreign keys are validated below, and the statistics commit
            // with the rows.
            report("analyze", spec.employees)
            let analyzeStarted = clock.now
            try phases.measure("analyze") { _ = try c.execute("ANALYZE " + tables.map { "payrun." + $0 }.joined(separator: ", ")) }
            summary.analyzeElapsed = clock.now - analyzeStarted
            report("indexes", spec.employees)
            let restoreStarted = clock.now
            try SeedBulkLoad.restore(restores, phases: &phases, on: c)
            summary.restoreElapsed = clock.now - restoreStarted
            try phases.measure("sequences") { try advanceSequences(tenantLast: bases.tenant + Int64(layout.tenants.count) - 1,
                                 workplaceLast: bases.workplace + Int64(layout.workplaces.count) - 1,
                                 employeeLast: bases.employee + Int64(spec.employees) - 1,
                                 contractLast: generator.nextContractId - 1, shiftLast: generator.nextShiftId - 1,
                                 absenceLast: generator.nextAbsenceId - 1, on: c) }
            report("commit", spec.employees)
        }

        summary.elapsed = clock.now - started
        summary.phases = phases.phases
        report("done", spec.employees)
        return summary
    }

    /// `VACUUM (ANALYZE)` of the seeded tables: sets hint bits and the visibility map once, so that
    /// the first month-end run after a seed does not pay for it, and autovacuum does not start on
    /// the freshly inserted rows in the middle of a benchmark. Outside any transaction.
    public static func vacuum(on connection: PostgresConnection) throws {
        try connection.execute("VACUUM (ANALYZE) " + tables.map { "payrun." + $0 }.joined(separator: ", "))
    }

    static func write(_ block: SeedBlock, createdAt: Int64, phases: inout SeedPhaseClock, on c: PostgresConnection) throws {
        try phases.measure("copy employees") {
            try c.copyIn(SeedCopy.employees) { writer in
                for e in block.employees { try writer.row { SeedCopy.write(e, createdAt: createdAt, to: &$0) } }
            }
        }
        try phases.measure("copy contracts") {
            try c.copyIn(SeedCopy.contracts) { writer in
                for k in block.contracts { try writer.row { SeedCopy.write(k, createdAt: createdAt, to: &$0) } }
            }
        }
        try phases.measure("copy shifts") {
            try c.copyIn(SeedCopy.shifts) { writer in
                for s in block.shifts { try writer.row { SeedCopy.write(s, to: &$0) } }
            }
        }
        try phases.measure("copy absences") {
            try c.copyIn(SeedCopy.absences) { writer in
                for a in block.absences { try writer.row { SeedCopy.write(a, to: &$0) } }
            }
        }
    }

    /// True when `payrun.shifts` holds at most `limit` rows (counted up to limit + 1).
    static func shiftsAtMost(_ limit: Int, on connection: PostgresConnection) throws -> Bool {
        let count = try connection.queryOne("SELECT count(*) FROM (SELECT 1 FROM payrun.shifts LIMIT $1) AS s", [.int(Int64(limit) + 1)])?
            .int64(at: 0) ?? 0
        return count <= Int64(limit)
    }

    // MARK: Prerequisites and ids

    static func checkPrerequisites(on connection: PostgresConnection) throws {
        guard let row = try connection.queryOne("""
            SELECT to_regclass('payrun.shifts') IS NOT NULL,
                   (SELECT rolsuper OR rolbypassrls FROM pg_catalog.pg_roles WHERE rolname = current_user),
                   current_user
            """) else { throw PayrollStoreError(.invalidState, "no answer from the server") }
        guard try row.decode(Bool.self, at: 0) else {
            throw PayrollStoreError(.invalidState, "the payrun schema is missing: run `payrun db migrate` first")
        }
        guard try row.decode(Bool?.self, at: 1) ?? false else {
            throw PayrollStoreError(.invalidState, """
                role \(try row.string(at: 2)) is subject to row-level security, and PostgreSQL refuses COPY FROM into \
                such tables (migration 0002 forces RLS even for the owner): seed as a superuser or a role with BYPASSRLS
                """)
        }
    }

    struct IdBases {
        var tenant: Int64
        var workplace: Int64
        var employee: Int64
        var contract: Int64
        var shift: Int64
        var absence: Int64
    }

    /// The first id to use in each table: after the largest tenant id (tenants are global), and
    /// the next value of every other identity sequence (their keys start with tenant_id, so new
    /// tenants cannot collide with existing rows).
    static func idBases(on connection: PostgresConnection) throws -> IdBases {
        func next(_ table: String) -> String {
            "coalesce(pg_sequence_last_value(pg_get_serial_sequence('payrun.\(table)', 'id')::regclass), 0) + 1"
        }
        guard let row = try connection.queryOne("""
            SELECT greatest((SELECT coalesce(max(id), 0) + 1 FROM payrun.tenants), \(next("tenants"))),
                   \(next("workplaces")), \(next("employees")), \(next("contracts")), \(next("shifts")), \(next("absences"))
            """) else { throw PayrollStoreError(.invalidState, "no answer from the server") }
        return IdBases(tenant: try row.int64(at: 0), workplace: try row.int64(at: 1), employee: try row.int64(at: 2),
                       contract: try row.int64(at: 3), shift: try row.int64(at: 4), absence: try row.int64(at: 5))
    }

    /// Moves each identity sequence to at least the last id used, so that rows inserted later with
    /// default ids do not collide with seeded ones.
    static func advanceSequences(tenantLast: Int64, workplaceLast: Int64, employeeLast: Int64, contractLast: Int64,
                                 shiftLast: Int64, absenceLast: Int64, on connection: PostgresConnection) throws {
        let pairs: [(String, Int64)] = [("tenants", tenantLast), ("workplaces", workplaceLast), ("employees", employeeLast),
                                        ("contracts", contractLast), ("shifts", shiftLast), ("absences", absenceLast)]
        for (table, last) in pairs where last >= 1 {
            try connection.execute("""
                SELECT setval(pg_get_serial_sequence('payrun.\(table)', 'id'),
                              greatest($1::bigint, coalesce(pg_sequence_last_value(pg_get_serial_sequence('payrun.\(table)', 'id')::regclass), 1)))
                """, [.int(last)])
        }
    }
}
