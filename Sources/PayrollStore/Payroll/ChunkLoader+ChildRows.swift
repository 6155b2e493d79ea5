import PayrollRules
import PostgresClient

extension ChunkLoader {
    /// The child rows of loaded employees, grouped by employee (index of `employees`) and sorted.
    struct ChildRows {
        var contracts: GroupedRows<ContractRow>
        var shifts: GroupedRows<ShiftRow>
        /// The explicit break windows of all shifts (`ShiftRow.breaks` are ranges of it).
        var breakWindows: [BreakRanges.Window?]
        var absences: GroupedRows<AbsenceRow>
        var shiftsLoaded: Int
    }

    /// Maps the employee id of a child row to its index in `employees` (sorted by id). A chunk's
    /// ids are (nearly) contiguous, so normally a table indexed by `id - first` answers without
    /// hashing; only for ids spread wider than four times their count is a dictionary built
    /// (`indexById`). Rows mostly arrive grouped by employee, so the previous row's answer is
    /// kept as well.
    struct EmployeeIndex {
        private let firstId: Int64
        /// Index + 1 of the employee with id `firstId + k`, 0 for none; empty when not dense.
        private let dense: [Int32]
        private let indexById: [Int64: Int]
        private var lastId: Int64?
        private var lastIndex: Int?

        init(employees: [EmployeeRow]) {
            firstId = employees.first?.id ?? 0
            let span = (employees.last?.id ?? 0).subtractingReportingOverflow(firstId)
            guard !span.overflow, span.partialValue < Int64(employees.count) * 4 + 64,
                  employees.count < Int(Int32.max) else {
                dense = []
                var byId: [Int64: Int] = [:]
                byId.reserveCapacity(employees.count)
                for (i, e) in employees.enumerated() { byId[e.id] = i }
                indexById = byId
                return
            }
            indexById = [:]
            var table = [Int32](repeating: 0, count: employees.isEmpty ? 0 : Int(span.partialValue) + 1)
            for (i, e) in employees.enumerated() { table[Int(e.id - firstId)] = Int32(i + 1) }
            dense = table
        }

        @inline(__always)
        mutating func index(of id: Int64) -> Int? {
            if id == lastId { return lastIndex }
            lastId = id
            if dense.isEmpty {
                lastIndex = indexById[id]
            } else {
                let offset = id.subtractingReportingOverflow(firstId)
                if !offset.overflow, offset.partialValue >= 0, offset.partialValue < Int64(dense.count) {
                    let slot = Int(dense[Int(offset.partialValue)])
                    lastIndex = slot == 0 ? nil : slot - 1
                } else {
                    lastIndex = nil
                }
            }
            return lastIndex
        }
    }

    /// A shift row not in `ShiftFields`' layout, read field by field (the same errors as ever).
    /// Out of line: with its error paths inlined, the COPY's row closure kept a large frame and
    /// spilled its registers on the common path too.
    @inline(never)
    static func appendShiftReadByField(_ row: inout BinaryCopyRow, index: inout EmployeeIndex,
                                       shifts: inout GroupedRows<ShiftRow>.Builder,
                                       breakWindows: inout [BreakRanges.Window?]) throws {
        guard let i = index.index(of: try row.int64()) else { return }
        let shift = ShiftRow(startsAt: try row.timestamptz(), endsAt: try row.timestamptz(),
                             breakMinutes: try row.optionalInt32(),
                             breaks: try row.withTextBytes { (bytes) throws(PostgresError) -> Range<Int32>? in
                                 guard let bytes else { return nil }
                                 return BreakRanges.decode(multirange: bytes, appendingTo: &breakWindows)
                             })
        shifts.append(shift, group: i)
    }

    /// The three reads of `loadChildRows`, as the SELECTs its COPYs wrap (separate so that a test can
    /// EXPLAIN them).
    ///
    /// The tenant is named by the transaction's setting, `x.tenant_id = payrun.current_tenant_id()`,
    /// not by a literal: under row-level security (production's payrun_worker) the policy adds that
    /// same qual, and with a literal beside it PostgreSQL 15 plans `current_tenant_id() = <literal>`
    /// as a one-time filter in a Result node that projects every row again (≈ 0.2 server
    /// CPU-seconds per 100k month-end, most of it for the 2.2M shifts; benchmarks/RESULTS.md, session
    /// 20). As one expression it is a single index condition, for every role. The first read checks
    /// that the setting is `tenantId` (`payrun.tenant_scope_is`, migration 0023: raises 42501
    /// otherwise, once per statement), so a transaction scoped to no tenant or to another one fails
    /// instead of reading nothing or another tenant's rows.
    struct ChildReads {
        /// Contracts overlapping the period, each as its stored `load_fields` (migration 0020: the
        /// fields of `ContractRow.columnsSQL` in one bytea, one send on the server instead of ~10).
        /// Runs first, and carries the tenant check.
        var contracts: String
        /// Shifts starting in the window, with their explicit breaks (binary tstzmultirange).
        var shifts: String
        /// Absences in the window.
        var absences: String

        init(tenantId: Int64, employeeIds: [Int64], periodStart: LocalDate, periodEnd: LocalDate,
             windowStart: LocalDate, windowEnd: LocalDate) {
            let employees = ChunkLoader.childRowCondition(employeeIds: employeeIds)
            let tenant = "x.tenant_id = payrun.current_tenant_id()"
            contracts = """
                SELECT x.employee_id, \(ContractRow.loadFieldsSQL)
                  FROM payrun.contracts x
                  WHERE payrun.tenant_scope_is(\(tenantId)) AND \(tenant) AND \(employees)
                    AND x.effective_from <= \(DateConversion.dateLiteral(periodEnd))
                    AND (x.effective_to_exclusive IS NULL OR x.effective_to_exclusive > \(DateConversion.dateLiteral(periodStart)))
                """
            shifts = """
                SELECT x.employee_id, x.starts_at, x.ends_at, x.break_minutes, x.breaks
                  FROM payrun.shifts x
                  WHERE \(tenant) AND \(employees)
                    AND x.starts_at >= \(DateConversion.koreaMidnightLiteral(windowStart))
                    AND x.starts_at < \(DateConversion.koreaMidnightLiteral(windowEnd.adding(days: 1)))
                """
            absences = """
                SELECT x.employee_id, x.id, x.absence_date, x.kind
                  FROM payrun.absences x
                  WHERE \(tenant) AND \(employees)
                    AND x.absence_date BETWEEN \(DateConversion.dateLiteral(windowStart)) AND \(DateConversion.dateLiteral(windowEnd))
                """
        }
    }

    /// Reads the contracts overlapping the period and the shifts and absences in the window of
    /// `employees` (sorted by id) by binary COPY: shared by
    /// `load` (one run) and `loadParts` (parts of several runs of one period).
    static func loadChildRows(tenantId: Int64, employees: [EmployeeRow],
                              periodStart: LocalDate, periodEnd: LocalDate, windowStart: LocalDate, windowEnd: LocalDate,
                              on connection: PostgresConnection) throws -> ChildRows {
        let reads = ChildReads(tenantId: tenantId, employeeIds: employees.map(\.id), periodStart: periodStart,
                               periodEnd: periodEnd, windowStart: windowStart, windowEnd: windowEnd)

        // The child rows come in no particular order (no ORDER BY: no sort on the server, and any
        // plan — index range scan or bitmap scan — will do); they are grouped by employee through
        // `EmployeeIndex` (rows of employees not loaded are dropped) and sorted per employee below.

        // Contracts first: their read checks the transaction's tenant (`ChildReads`).
        var contracts = GroupedRows<ContractRow>.Builder(reservingCapacity: employees.count)
        var index = EmployeeIndex(employees: employees)
        let keywords = StoredKeywords.Contract()
        if !employees.isEmpty {
            try connection.copyOut("COPY (\(reads.contracts)) TO STDOUT (FORMAT binary)") { row in
                guard let i = index.index(of: try row.int64()) else { return }
                contracts.append(try ContractRow(loadFields: &row, keywords: keywords), group: i)
            }
        }

        // Shifts: no shift ids; an error names its shift by index until `ShiftNames` looks the id up.
        // About as many shifts as the last chunk had per employee (a month's worth), to spare regrowth.
        var shifts = GroupedRows<ShiftRow>.Builder(reservingCapacity: employees.count * 32)
        var breakWindows: [BreakRanges.Window?] = []
        if !employees.isEmpty {
            try connection.copyOut("COPY (\(reads.shifts)) TO STDOUT (FORMAT binary)") { row in
                // The usual layout in one piece; any other row through the field readers below.
                if let f = ShiftFields.fields(row.unreadBytes) {
                    guard let i = index.index(of: f.employeeId) else { return }
                    let breaks = f.breaks.map { BreakRanges.decode(multirange: $0, appendingTo: &breakWindows) }
                    shifts.append(ShiftRow(startsAt: f.startsAt, endsAt: f.endsAt, breakMinutes: f.breakMinutes, breaks: breaks),
                                  group: i)
                    return
                }
                try appendShiftReadByField(&row, index: &index, shifts: &shifts, breakWindows: &breakWindows)
            }
        }

        var absences = GroupedRows<AbsenceRow>.Builder()
        if !employees.isEmpty {
            try connection.copyOut("COPY (\(reads.absences)) TO STDOUT (FORMAT binary)") { row in
                guard let i = index.index(of: try row.int64()) else { return }
                absences.append(AbsenceRow(id: try row.int64(), date: DateConversion.localDate(daysSince2000: try row.date()),
                                           kind: try row.keyword(StoredKeywords.absenceKind)), group: i)
            }
        }
        // The order the previous ORDER BY clauses gave: (effective_from), (starts_at, id), (date, id).
        // A shift's start is unique per employee (`shifts_by_employee_time`), so `starts_at` alone
        // orders shifts as `(starts_at, id)` did; should that index be gone, the end and the
        // break minutes still order shifts that differ in them the same way on every load.
        let shiftsLoaded = shifts.count
        var grouped = ChildRows(contracts: contracts.build(groupCount: employees.count),
                                shifts: shifts.build(groupCount: employees.count), breakWindows: breakWindows,
                                absences: absences.build(groupCount: employees.count), shiftsLoaded: shiftsLoaded)
        grouped.contracts.sortEachGroup { $0.effectiveFrom < $1.effectiveFrom }
        grouped.shifts.sortEachGroup { a, b in
            // `(startsAt, endsAt, breakMinutes ?? -1)` in lexicographic order; the start (unique per
            // employee) alone decides nearly always, so the rest is only looked at on a tie.
            a.startsAt != b.startsAt ? a.startsAt < b.startsAt : (a.endsAt, a.breakMinutes ?? -1) < (b.endsAt, b.breakMinutes ?? -1)
        }
        grouped.absences.sortEachGroup { ($0.date, $0.id) < ($1.date, $1.id) }
        return grouped
    }
}
