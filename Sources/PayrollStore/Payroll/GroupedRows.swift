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
            guard range.count > 1, !ChunkLoader.isSorted(rows[range], by: less) else { continue }
            rows[range].sort(by: less)
        }
    }

    /// Collects rows as they arrive, each with its group, then groups them (`build`).
    struct Builder {
        private var rows: [Row] = []
        private var groups: [Int32] = []
        private var arrivedGrouped = true

        init(reservingCapacity capacity: Int = 0) {
            rows.reserveCapacity(capacity)
            groups.reserveCapacity(capacity)
        }

        var count: Int { rows.count }

        mutating func append(_ row: Row, group: Int) {
            let g = Int32(truncatingIfNeeded: group)
            precondition(Int(g) == group && group >= 0, "a group index fits Int32")
            if let last = groups.last, g < last { arrivedGrouped = false }
            rows.append(row)
            groups.append(g)
        }

        /// The rows grouped (a stable counting sort when they did not arrive in group order).
        consuming func build(groupCount: Int) -> GroupedRows<Row> {
            var starts = [Int](repeating: 0, count: groupCount + 1)
            for g in groups { starts[Int(g) + 1] += 1 }
            for g in 0..<groupCount { starts[g + 1] += starts[g] }
            if arrivedGrouped { return GroupedRows(rows: rows, starts: starts) }
            var next = starts
            var order = [Int](repeating: 0, count: rows.count)
            for (k, g) in groups.enumerated() {
                order[next[Int(g)]] = k
                next[Int(g)] += 1
            }
            let source = rows
            return GroupedRows(rows: order.map { source[$0] }, starts: starts)
        }
    }
}
