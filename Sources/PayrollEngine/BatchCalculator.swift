import Dispatch
import PayrollRules
import Synchronization

/// Computes many employee-periods in parallel with `DispatchQueue.concurrentPerform`.
///
/// Employees are independent, so the batch is cut into contiguous slices of `sliceEmployees`
/// employees, and every result is written to its input's index: the output order (and every
/// amount) is the same whatever the thread count. A failing employee yields a `PayrollError` in
/// its slot; the others are still computed.
///
/// Three things keep two cores from getting in each other's way (measured: `benchmarks/RESULTS.md`,
/// "compute-speed" and session 13):
/// - one work item per worker, each taking the next slice from a shared counter until none is
///   left: a worker that finishes early takes the next slice, so the last one to finish waits for
///   at most one small slice, and a worker thread that wakes late only finds fewer slices left;
/// - small slices (≈ 50 µs of work): the wait at the end stays small next to a chunk job's few
///   milliseconds of compute;
/// - no shared reference counts: the inputs of a chunk share one workplace calendar (the same
///   array buffers), and every copy of an input retains and releases those buffers — atomic
///   writes to the same cache lines from both cores. Each worker computes with its own copy of
///   each calendar it meets (`CalendarCopies`), made once per call and worker rather than once per
///   slice, so those writes stay on one core. The copy holds the same entries, so every result is
///   unchanged.
public enum BatchCalculator {
    /// Upper bound on the employees one call accepts; callers chunk larger runs.
    public static let employeesMax = 1_000_000
    /// Employees per slice when computing in parallel (≈ 50 µs of work at ≈ 3.3 µs per employee).
    public static let sliceEmployees = 16

    /// - Parameters:
    ///   - inputs: one entry per employee-period.
    ///   - parallelism: work items to spread over (default: active processors). 1 computes inline.
    /// - Returns: one result per input, in input order.
    public static func calculate(_ inputs: [PayrollInput], parallelism: Int? = nil) -> [Result<Payslip, PayrollError>] {
        precondition(inputs.count <= employeesMax, "batch of \(inputs.count) exceeds employeesMax; chunk it")
        let count = inputs.count
        if count == 0 { return [] }
        let workers = max(1, min(parallelism ?? ProcessInfoCores.active, count))
        // The inputs are read in place through their buffer: an element read from the array
        // for a call was copied first (a retain and a release of each of its arrays and texts).
        return inputs.withUnsafeBufferPointer { inputs in
            [Result<Payslip, PayrollError>](unsafeUninitializedCapacity: count) { buffer, initialized in
                let results = ResultSlots(buffer)
                let shared = InputSlots(inputs)
                if workers == 1 {
                    var calendars = CalendarCopies(copies: false)
                    for i in 0..<count {
                        calendars.select(for: inputs[i])
                        results.store(compute(shared.address(i), calendar: calendars.current), at: i)
                    }
                } else {
                    let slices = SlicePlan(count: count, sliceEmployees: sliceEmployees)
                    // Relaxed: the counter only hands out slice numbers, each once; the results
                    // are published by `concurrentPerform`'s return.
                    let next = Atomic<Int>(0)
                    DispatchQueue.concurrentPerform(iterations: workers) { _ in
                        var calendars = CalendarCopies(copies: true)
                        while true {
                            let slice = next.wrappingAdd(1, ordering: .relaxed).oldValue
                            if slice >= slices.count { break }
                            for i in slices.bounds(of: slice) {
                                calendars.select(for: shared[i])
                                results.store(compute(shared.address(i), calendar: calendars.current), at: i)
                            }
                        }
                    }
                }
                // Every index of 0..<count was stored once: the slices partition it.
                initialized = count
            }
        }
    }

    /// The input's payslip, computed with `calendar` as its workplace calendar (the input's own,
    /// or a copy of it with the same entries: `CalendarCopies`); the input is read in place.
    /// `input` points into the batch's input array, which nobody writes meanwhile: the calculator
    /// reads it in place through `inout` and never writes it (see
    /// `PayrollCalculator.calculate(readingInPlace:calendar:)`).
    @inline(__always)
    static func compute(_ input: UnsafeMutablePointer<PayrollInput>, calendar: borrowing HolidayCalendar) -> Result<Payslip, PayrollError> {
        do throws(PayrollError) {
            return .success(try PayrollCalculator.calculate(readingInPlace: &input.pointee, calendar: calendar))
        } catch {
            return .failure(error)
        }
    }
}

/// Contiguous slices of `sliceEmployees` employees (the last one shorter) over `0..<count`:
/// slice k is `k * sliceEmployees ..< min(count, (k + 1) * sliceEmployees)`. Together they
/// partition `0..<count`, in order.
struct SlicePlan {
    let total: Int
    let sliceEmployees: Int
    /// The number of slices (0 for an empty batch).
    let count: Int

    init(count total: Int, sliceEmployees: Int) {
        precondition(total >= 0 && sliceEmployees > 0, "slice plan")
        self.total = total
        self.sliceEmployees = sliceEmployees
        count = (total + sliceEmployees - 1) / sliceEmployees
    }

    /// The input indices of slice `slice` (`0 ..< count`).
    @inline(__always)
    func bounds(of slice: Int) -> Range<Int> {
        let lower = slice * sliceEmployees
        return lower..<min(total, lower + sliceEmployees)
    }
}

/// The workplace calendars one work item computes with: with `copies`, a private copy of each
/// calendar met (its own array buffers, built from the same entries), so the retains and releases
/// of the calendar while computing touch memory no other thread writes; without, the inputs' own
/// calendar (one thread). Consecutive inputs of a batch share their calendar (one chunk = one
/// workplace), so one calendar serves a whole run of them; a calendar is recognised by its
/// entries' buffer (two calendars with the same buffer have the same entries, and a calendar is
/// a function of its entries). An input without a calendar (the built-in KR calendar) gets
/// `HolidayCalendar.korea` (or a copy of it). The calendar is passed to the calculator apart from
/// the input, so no input is copied to replace its calendar (a copy retained and released each
/// of its arrays and texts, once per employee).
struct CalendarCopies {
    /// Which calendar `current` is: the built-in one, or the one whose entries are at this address.
    private enum Source: Equatable {
        case none
        case korea
        case entries(UnsafeRawPointer?)
    }

    private let copies: Bool
    private var source = Source.none
    /// The calendar of the input last passed to `select(for:)`.
    private(set) var current = HolidayCalendar.korea

    init(copies: Bool) { self.copies = copies }

    /// Makes `current` the calendar of `input` (its workplace calendar, or the built-in one).
    @inline(__always)
    mutating func select(for input: borrowing PayrollInput) {
        let wanted: Source
        if let c = input.workplace.holidays {
            wanted = .entries(c.entries.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) })
        } else {
            wanted = .korea
        }
        if wanted == source { return }
        replace(with: input.workplace.holidays, source: wanted)
    }

    @inline(never)
    private mutating func replace(with calendar: HolidayCalendar?, source wanted: Source) {
        source = wanted
        if copies {
            current = HolidayCalendar(calendar?.entries ?? HolidayCalendar.korea.entries)
        } else {
            current = calendar ?? HolidayCalendar.korea
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
