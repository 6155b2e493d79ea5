import Dispatch
import PayrollRules

/// Computes many employee-periods in parallel with `DispatchQueue.concurrentPerform`.
///
/// Employees are independent, so the batch is cut into contiguous slices, one per work item, and
/// every result is written to its input's index: the output order (and every amount) is the same
/// whatever the thread count. A failing employee yields a `PayrollError` in its slot; the others
/// are still computed.
public enum BatchCalculator {
    /// Upper bound on the employees one call accepts; callers chunk larger runs.
    public static let employeesMax = 1_000_000

    /// - Parameters:
    ///   - inputs: one entry per employee-period.
    ///   - parallelism: work items to spread over (default: active processors). 1 computes inline.
    /// - Returns: one result per input, in input order.
    public static func calculate(_ inputs: [PayrollInput], parallelism: Int? = nil) -> [Result<Payslip, PayrollError>] {
        precondition(inputs.count <= employeesMax, "batch of \(inputs.count) exceeds employeesMax; chunk it")
        let count = inputs.count
        if count == 0 { return [] }
        let workers = max(1, min(parallelism ?? ProcessInfoCores.active, count))
        let results = ResultSlots<Result<Payslip, PayrollError>>(count: count)
        if workers == 1 {
            for i in 0..<count { results.store(compute(inputs[i]), at: i) }
        } else {
            // A few slices per worker smooths out uneven employees without per-employee dispatch cost.
            let slices = min(count, workers * 4)
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                let lower = count * slice / slices
                let upper = count * (slice + 1) / slices
                for i in lower..<upper { results.store(compute(inputs[i]), at: i) }
            }
        }
        return results.finish()
    }

    @inline(__always)
    static func compute(_ input: PayrollInput) -> Result<Payslip, PayrollError> {
        do throws(PayrollError) {
            return .success(try PayrollCalculator.calculate(input))
        } catch {
            return .failure(error)
        }
    }
}

/// Processor count without Foundation.
enum ProcessInfoCores {
    static var active: Int {
        #if canImport(Glibc)
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? Int(n) : 1
        #else
        return 1
        #endif
    }
}

#if canImport(Glibc)
import Glibc
#endif
