/// Wall-clock time of each phase of one chunk (`ChunkProcessor.process`), for the worker's debug
/// log and the benchmarks: where a slow chunk spends its time (database reads, the rules engine,
/// the payslip write, the run bookkeeping) without a profiler.
public struct ChunkPhaseTimings: Sendable, Equatable {
    /// Run lookup and the COPY reads of employees, contracts, shifts, absences and the calendar,
    /// including building and validating the inputs.
    public var load: Duration = .zero
    /// The calculator over the valid inputs.
    public var compute: Duration = .zero
    /// Locking the run row and writing the payslips (COPY, insert or upsert).
    public var write: Duration = .zero
    /// Marking the chunk finished and, for the last chunk, finalizing the run.
    public var finish: Duration = .zero
    /// Shift rows the load read.
    public var shiftsLoaded: Int = 0

    public init() {}

    /// `load=12.3ms compute=4.0ms write=8.1ms finish=0.9ms`.
    public var summary: String {
        func ms(_ d: Duration) -> String {
            let micros = d.components.seconds * 1_000_000 + d.components.attoseconds / 1_000_000_000_000
            return "\(micros / 1000).\(micros % 1000 / 100)ms"
        }
        return "load=\(ms(load)) compute=\(ms(compute)) write=\(ms(write)) finish=\(ms(finish))"
    }
}

extension Duration {
    /// Whole microseconds (truncated), for `run_chunks.load_us` … (migration 0010).
    public var wholeMicroseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }

    /// Whole milliseconds (truncated), for log metadata.
    public var wholeMilliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
