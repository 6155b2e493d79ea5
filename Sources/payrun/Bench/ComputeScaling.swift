import Foundation
import PayrollEngine
import PayrollRules
import PayrollStore
import PostgresClient

/// Step 4 of `payrun bench`: the compute phase alone, on the same inputs, with `BatchCalculator`
/// at parallelism 1 and N. The inputs — up to `sampleMax` employees, chunk by chunk in plan order —
/// are loaded by `ChunkLoader` (untimed); each parallelism is timed `repetitions` times and the best
/// counts.
struct ComputeScaling {
    var employees: Int
    var threads: Int
    var oneCoreSeconds: Double
    var allCoresSeconds: Double
    var speedUp: Double { allCoresSeconds > 0 ? oneCoreSeconds / allCoresSeconds : 0 }

    static func run(url: String, threads: Int, sampleMax: Int = 50_000, repetitions: Int = 3) throws -> ComputeScaling {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        let plan = try connection.query("""
            SELECT tenant_id, run_id, employee_id_from, employee_id_to FROM payrun.run_chunks ORDER BY tenant_id, run_id, chunk_no
            """).map { (try $0.int64(at: 0), try $0.int64(at: 1), try $0.int64(at: 2), try $0.int64(at: 3)) }
        var inputs: [PayrollInput] = []
        for (tenant, runId, from, to) in plan where inputs.count < sampleMax {
            let chunk: LoadedChunk = try connection.transaction { c in
                try TenantScope.set(tenant, on: c)
                guard let run = try PayrollRun.fetch(tenantId: tenant, runId: runId, on: c) else {
                    throw CommandFailure("run \(runId) vanished")
                }
                return try ChunkLoader.load(run: run, selection: .range(from: from, to: to), on: c)
            }
            for e in chunk.employees where inputs.count < sampleMax {
                if case .success(let input) = e.input { inputs.append(input) }
            }
        }
        func best(_ parallelism: Int) -> Double {
            var fastest = Double.infinity
            for _ in 0..<repetitions {
                let started = ContinuousClock.now
                let results = BatchCalculator.calculate(inputs, parallelism: parallelism)
                let elapsed = seconds(started.duration(to: .now))
                precondition(results.count == inputs.count)
                fastest = min(fastest, elapsed)
            }
            return fastest
        }
        let one = best(1)
        let all = best(threads)
        return ComputeScaling(employees: inputs.count, threads: threads, oneCoreSeconds: one, allCoresSeconds: all)
    }
}
