import PostgresClient

/// The chunk jobs of the month-end `payrun bench` just ran, as its worker ran them: the parts of
/// one packed `run.chunk` job (`{"parts": […]}`) form one job; a chunk of a single-part job (or
/// one no succeeded job lists) is a job alone. Read from `payrun.run_chunks` and `payrun.jobs`
/// after the month-end (both steps that replay its jobs — the floor and the per-job compute
/// scaling — use this grouping).
enum MonthEndJobs {
    struct Part: Sendable {
        var tenant: Int64
        var run: Int64
        var from: Int64
        var to: Int64
        var employees: Int
        var job: Int64?
    }

    /// The jobs in the order of their ids, each its parts in (tenant, run, chunk) order.
    static func read(on connection: PostgresConnection) throws -> [[Part]] {
        let parts = try connection.query("""
            SELECT c.tenant_id, c.run_id, c.employee_id_from, c.employee_id_to, c.employees_planned, j.job_id
              FROM payrun.run_chunks c
              LEFT JOIN (SELECT j.id AS job_id, j.tenant_id, (p ->> 'runId')::bigint AS run_id, (p ->> 'chunk')::integer AS chunk_no
                           FROM payrun.jobs j, jsonb_array_elements(j.payload -> 'parts') AS p
                          WHERE j.kind = 'run.chunk' AND j.state = 'succeeded' AND j.payload ? 'parts') AS j
                ON j.tenant_id = c.tenant_id AND j.run_id = c.run_id AND j.chunk_no = c.chunk_no
             ORDER BY coalesce(j.job_id, 0), c.tenant_id, c.run_id, c.chunk_no
            """).map { Part(tenant: try $0.int64(at: 0), run: try $0.int64(at: 1), from: try $0.int64(at: 2), to: try $0.int64(at: 3),
                            employees: Int(try $0.int32(at: 4)), job: try $0.decode(Int64?.self, at: 5)) }
        var jobs: [[Part]] = []
        for part in parts {
            if let job = part.job, let last = jobs.last?.last, last.job == job { jobs[jobs.count - 1].append(part) } else { jobs.append([part]) }
        }
        return jobs
    }
}
