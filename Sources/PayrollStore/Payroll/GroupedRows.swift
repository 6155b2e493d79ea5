/// Child rows of many employees in one flat array, grouped by the employee's index, with the
/// bounds of each group: one allocation per table and chunk instead of one small array per
/// employee (which cost an allocation or several per employee to fill, and as many to free).
struct GroupedRows<Row> {
    /// All rows, group 0's first; within a group in arrival order until `sortEachGroup`.
    private(set) var rows: [Row]
    /// Group g is `rows[starts[g]..<starts[g + 1]]`; `starts.count` = groups + 1.
    private let starts: [Int]

    var groupCount: Int { starts.count - 1 }

    subscript(group: Int) -> ArraySlice<Row> { rows[starts[group]..<starts[group + 1]] }

    /// Sorts the rows of every group by `less` (groups that are already sorted are left alone).
    mutating func sortEachGroup(by less: (Row, Row) -> Bool) {
        for g in 0..<groupCount {
            let range = starts[g]..<starts[g + 1]
            // Checked through the buffer (the array slice's reads cost a bounds check each).
            guard range.count > 1, !rows.withUnsafeBufferPointer({ ChunkLoader.isSorted($0[range], by: less) }) else { continue }
            rows[range].sort(by: less)
        }
    }

    /// Collects rows as they arrive, each with its group, then groups them (`build`). Rows mostly
    /// arrive grouped, so what is kept beside the rows is one run (group, first row) per change
    /// of group, not a group per row.
    struct Builder {
        private var rows: [Row] = []
        /// Runs of consecutive rows of one group: the group and the index of the run's first row.
        private var runs: [(group: Int, start: Int)] = []
        private var lastGroup = -1
        private var arrivedGrouped = true

        init(reservingCapacity capacity: Int = 0) {
            rows.reserveCapacity(capacity)
        }

        var count: Int { rows.count }

        @inline(__always)
        mutating func append(_ row: consuming Row, group: Int) {
            if group != lastGroup { startRun(group) }
            // Moved in: a row with texts (a contract's unknown keyword) is not copied and destroyed.
            rows.append(row)
        }

        private mutating func startRun(_ group: Int) {
            precondition(group >= 0 && group <= Int(Int32.max), "a group index fits Int32")
            if group < lastGroup { arrivedGrouped = false }
            lastGroup = group
            runs.append((group, rows.count))
        }

        /// The rows grouped (a stable counting sort of the runs when they did not arrive in group order).
        consuming func build(groupCount: Int) -> GroupedRows<Row> {
            var starts = [Int](repeating: 0, count: groupCount + 1)
            for (k, run) in runs.enumerated() {
                let end = k + 1 < runs.count ? runs[k + 1].start : rows.count
                starts[run.group + 1] += end - run.start
            }
            for g in 0..<groupCount { starts[g + 1] += starts[g] }
            if arrivedGrouped { return GroupedRows(rows: rows, starts: starts) }
            // Each run's rows copied straight to their group's next free place, runs in arrival
            // order (every place is written exactly once: the runs' lengths sum to the group sizes).
            var next = starts
            let grouped = [Row](unsafeUninitializedCapacity: rows.count) { buffer, initialized in
                rows.withUnsafeBufferPointer { source in
                    for (k, run) in runs.enumerated() {
                        let end = k + 1 < runs.count ? runs[k + 1].start : source.count
                        let place = next[run.group]
                        (buffer.baseAddress! + place).initialize(from: source.baseAddress! + run.start, count: end - run.start)
                        next[run.group] = place + end - run.start
                    }
                }
                initialized = rows.count
            }
            return GroupedRows(rows: grouped, starts: starts)
        }
    }
}
