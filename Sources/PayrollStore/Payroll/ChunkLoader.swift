import PayrollRules
import PostgresClient

/// Reads the inputs of some employees of a run from PostgreSQL by binary COPY and turns them into
/// validated `PayrollInput`s, with the same validation as `payrun calc` (`PayrollInput.validated()`).
///
/// What is read, for the run's tenant and workplace (the caller's transaction must have set the
/// tenant, see `TenantScope`):
/// - employees of the workplace employed during the period (hired on or before its end, not left
///   before its start), restricted to the selection;
/// - their contract **in force on the reference date** = the period's last day, or the leaving day
///   when the employee leaves inside the period. No contract on that date is an error
///   (`contract`, missing_field); two (only possible if the exclusion constraint was bypassed) is an
///   error too (`contract`, invalid_value) — never a guess;
/// - shifts starting from 7 days before the period up to 7 days after it (the whole weeks around
///   the period that the 40-hour and 주휴 tests need; exactly the window `payrun calc` accepts);
/// - absences in the same window;
/// - the workplace calendar: the national holidays (`payrun.holidays`) plus the workplace's
///   additions, minus its withdrawals (`workplace_holidays.observed = false`).
///
/// Errors name the stored record: `shifts[id=123].end`, `absences[id=7].date` (shift ids are
/// looked up only for failed employees: `ShiftNames`).
public enum ChunkLoader {
    public static func load(run: PayrollRun, selection: EmployeeSelection,
                            on connection: PostgresConnection) throws -> LoadedChunk {
        let tenant = run.tenantId
        let idCondition = selection.sqlCondition
        let windowStart = run.periodStart.adding(days: -CalcLimits.daysAroundPeriodMax)
        let windowEnd = run.periodEnd.adding(days: CalcLimits.daysAroundPeriodMax)

        let workplace = try loadWorkplace(run: run, windowStart: windowStart, windowEnd: windowEnd, on: connection)

        // Employees.
        var employees: [EmployeeRow] = []
        try connection.copyOut("""
            COPY (SELECT id, \(EmployeeRow.columnsSQL)
                  FROM payrun.employees
                  WHERE tenant_id = \(tenant) AND workplace_id = \(run.workplaceId) AND id \(idCondition)
                    AND (hired_on IS NULL OR hired_on <= \(DateConversion.dateLiteral(run.periodEnd)))
                    AND (left_on IS NULL OR left_on >= \(DateConversion.dateLiteral(run.periodStart)))
                  ORDER BY id) TO STDOUT (FORMAT binary)
            """) { row in
            employees.append(try EmployeeRow(id: try row.int64(), row: &row))
        }
        let children = try loadChildRows(tenantId: tenant, employees: employees,
                                         periodStart: run.periodStart, periodEnd: run.periodEnd,
                                         windowStart: windowStart, windowEnd: windowEnd, on: connection)
        let shiftsLoaded = children.shiftsLoaded

        var loaded: [LoadedEmployee] = []
        loaded.reserveCapacity(employees.count)
        var shiftNames = ShiftNames()
        var schedules = ScheduleArrays()
        var digestScratch = InputDigest.Scratch()
        for (i, e) in employees.enumerated() {
            let employee = loadEmployee(run: run, workplace: workplace, employee: e, contracts: children.contracts[i],
                                        shifts: children.shifts[i], breakWindows: children.breakWindows,
                                        absences: children.absences[i], schedules: &schedules,
                                        digestScratch: &digestScratch)
            // Only a failure (no digest) can name a shift by index.
            if employee.inputDigest == nil {
                shiftNames.note(employee.input, position: i, employeeId: e.id, shifts: children.shifts[i])
            }
            loaded.append(employee)
        }
        var missing: [Int64] = []
        if case .one(let id) = selection, !employees.contains(where: { $0.id == id }) { missing.append(id) }
        var chunks = [LoadedChunk(run: run, employees: loaded, missingEmployeeIds: missing, shiftsLoaded: shiftsLoaded)]
        try shiftNames.resolve(tenantId: tenant, in: &chunks, on: connection)
        return chunks[0]
    }

    /// The SQL condition that picks the child rows (contracts, shifts, absences) of `ids` (sorted,
    /// non-empty; integers only, so safe to inline: COPY takes no bind parameters).
    ///
    /// Normally one range, `x.employee_id BETWEEN first AND last`: a chunk is a contiguous id
    /// range of one workplace, so the range holds (almost) only its employees, and a range is one
    /// index descent and a sequential walk of `(tenant_id, employee_id, …)`. When the loaded
    /// employees are less than half of the ids in their range (workplaces whose employee ids
    /// interleave), the range would read other workplaces' rows, so the ids are listed as well
    /// (`= ANY('{…}')`: one descent per employee, and ~5 ms of planning for 1,000 ids).
    ///
    /// Neither form joins `employees`: an earlier join on workplace_id let the planner, on tables
    /// not analyzed yet after a bulk import (estimate: 1 row), pick a nested loop that rescanned
    /// the whole workplace per shift (10.7 M rows filtered, 3–8 s for 999 employees). A condition
    /// on the leading index columns of one table has no such plan.
    static func childRowCondition(employeeIds ids: [Int64]) -> String {
        guard let first = ids.first, let last = ids.last else { return "false" }
        if first == last { return "x.employee_id = \(first)" }
        let range = "x.employee_id BETWEEN \(first) AND \(last)"
        let span = last.subtractingReportingOverflow(first)
        if !span.overflow, span.partialValue < Int64(ids.count) * 2 { return range }
        return range + " AND x.employee_id = ANY('{\(ids.map { String($0) }.joined(separator: ","))}'::bigint[])"
    }

    static func isSorted<C: RandomAccessCollection>(_ items: C, by less: (C.Element, C.Element) -> Bool) -> Bool {
        var previous = items.startIndex
        guard previous != items.endIndex else { return true }
        var k = items.index(after: previous)
        while k != items.endIndex {
            if less(items[k], items[previous]) { return false }
            previous = k
            k = items.index(after: k)
        }
        return true
    }

    // MARK: Workplace

    struct WorkplaceData {
        var weekStart: Weekday
        var calendar: HolidayCalendar
    }

    static func loadWorkplace(run: PayrollRun, windowStart: LocalDate, windowEnd: LocalDate,
                              on connection: PostgresConnection) throws -> WorkplaceData {
        guard let row = try connection.queryOnePrepared(
            "SELECT week_start FROM payrun.workplaces WHERE tenant_id = $1 AND id = $2",
            [.int(run.tenantId), .int(run.workplaceId)])
        else {
            throw PayrollStoreError(.notFound, "workplace \(run.workplaceId) of run \(run.id) does not exist in tenant \(run.tenantId)")
        }
        let weekStart = Weekday(key: try row.string(at: 0)) ?? .mon
        // National calendar ∪ company additions − withdrawals, over the window.
        let rows = try connection.queryPrepared("""
            SELECT d, kind, name FROM (
                SELECT h.holiday_date AS d, h.kind, h.name FROM payrun.holidays h
                 WHERE h.holiday_date BETWEEN $3 AND $4
                   AND NOT EXISTS (SELECT 1 FROM payrun.workplace_holidays w
                                    WHERE w.tenant_id = $1 AND w.workplace_id = $2 AND w.holiday_date = h.holiday_date)
                UNION ALL
                SELECT w.holiday_date, w.kind, w.name FROM payrun.workplace_holidays w
                 WHERE w.tenant_id = $1 AND w.workplace_id = $2 AND w.observed
                   AND w.holiday_date BETWEEN $3 AND $4) AS t
            ORDER BY d
            """,
            [.int(run.tenantId), .int(run.workplaceId), .date(DateConversion.postgresDate(windowStart)),
             .date(DateConversion.postgresDate(windowEnd))])
        var entries: [HolidayCalendar.Entry] = []
        for row in rows {
            let date = DateConversion.localDate(try row.date(at: 0))
            let kind = HolidayKind(rawValue: try row.string(at: 1)) ?? .company
            entries.append(HolidayCalendar.Entry(date: date, kind: kind, name: try row.string(at: 2), source: "database"))
        }
        return WorkplaceData(weekStart: weekStart, calendar: HolidayCalendar(entries))
    }
}
