import CLibPQ

/// The complete result of one statement (rows are held in memory by libpq until the result is
/// released). For large selects use `forEachRow` or `copyOut` instead.
///
/// Not `Sendable`: read it on the thread that ran the query.
public final class PostgresResult: RandomAccessCollection {
    let handle: OpaquePointer

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(PQntuples(handle)) }

    public subscript(position: Int) -> PostgresRow {
        precondition(position >= 0 && position < endIndex, "row \(position) out of 0..<\(endIndex)")
        return PostgresRow(result: self, row: Int32(position))
    }

    /// Number of rows returned.
    public var rowCount: Int { endIndex }

    /// Number of columns of each row.
    public var columnCount: Int { Int(PQnfields(handle)) }

    /// Column names in order.
    public var columnNames: [String] {
        (0..<PQnfields(handle)).map { String(cString: PQfname(handle, $0)) }
    }

    /// Rows inserted, updated, deleted, selected, copied ... as the command tag says; nil when
    /// the command does not report a count (e.g. `CREATE TABLE`).
    public var affectedRowCount: Int? {
        guard let text = PQcmdTuples(handle) else { return nil }
        return Int(String(cString: text))
    }

    /// The command tag, e.g. `INSERT 0 3`.
    public var commandTag: String {
        guard let text = PQcmdStatus(handle) else { return "" }
        return String(cString: text)
    }

    /// Index of the column with this name, or nil.
    public func columnIndex(named name: String) -> Int? {
        let index = PQfnumber(handle, "\"" + name.replacingDoubleQuotes() + "\"")
        return index < 0 ? nil : Int(index)
    }
}

extension String {
    func replacingDoubleQuotes() -> String {
        var text = ""
        for scalar in unicodeScalars {
            if scalar == "\"" { text += "\"\"" } else { text.unicodeScalars.append(scalar) }
        }
        return text
    }
}
