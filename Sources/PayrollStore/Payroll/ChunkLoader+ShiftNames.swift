import PayrollRules
import PostgresClient

extension ChunkLoader {
    /// Names the shifts of load errors by their stored ids.
    ///
    /// The bulk load reads no shift ids (one datum fewer per shift for the server to send and the
    /// worker to decode), so an error about a shift first names it by index, `shifts[3].end`: its
    /// position among the employee's shifts, which are sorted by start. `note` keeps such a
    /// failure with the shift's start; `resolve` looks the ids up with one statement for the
    /// whole chunk (by `shifts_by_employee_time`: one start per employee) and rewrites the field
    /// to `shifts[id=123].end`, the name an error has always had. Failures are rare, so the
    /// lookup is too. A shift deleted between the load and the lookup keeps its index name.
    struct ShiftNames {
        private struct Pending {
            var part: Int
            var position: Int
            var employeeId: Int64
            var startsAt: Int64
        }

        private var pending: [Pending] = []

        /// Notes the employee at `position` of part `part` if its result is an error naming one of
        /// `shifts` (the rows its input was built from, in that order) by index.
        mutating func note(_ result: Result<PayrollInput, PayrollError>, part: Int = 0, position: Int, employeeId: Int64,
                           shifts: ArraySlice<ShiftRow>) {
            guard case .failure(let error) = result, let (prefix, index, _) = indexedField(error.field), prefix == "shifts[",
                  index >= 0, index < shifts.count else { return }
            pending.append(Pending(part: part, position: position, employeeId: employeeId,
                                   startsAt: shifts[shifts.startIndex + index].startsAt))
        }

        /// Renames the noted errors in `chunks` (indexed by part) to the shifts' ids.
        func resolve(tenantId: Int64, in chunks: inout [LoadedChunk], on connection: PostgresConnection) throws {
            if pending.isEmpty { return }
            let rows = try connection.query("""
                SELECT r.n, min(s.id)
                  FROM unnest($2::bigint[], $3::text[]::timestamptz[]) WITH ORDINALITY AS r(employee_id, starts_at, n)
                  JOIN payrun.shifts s ON s.tenant_id = $1 AND s.employee_id = r.employee_id AND s.starts_at = r.starts_at
                 GROUP BY r.n
                """, [.int(tenantId), .int64Array(pending.map(\.employeeId)),
                      .textArray(pending.map { PostgresTimestamp(microsecondsSince2000: $0.startsAt).description })])
            for row in rows {
                let ordinal = Int(try row.int64(at: 0)), id = try row.int64(at: 1)
                guard pending.indices.contains(ordinal - 1) else { continue }
                let p = pending[ordinal - 1]
                guard case .failure(var error) = chunks[p.part].employees[p.position].input,
                      let (prefix, _, rest) = indexedField(error.field) else { continue }
                error.field = "\(prefix)id=\(id)" + rest
                chunks[p.part].employees[p.position].input = .failure(error)
            }
        }
    }
}
