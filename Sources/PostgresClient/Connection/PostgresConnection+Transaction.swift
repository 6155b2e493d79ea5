import CLibPQ

/// Isolation level of a transaction.
public enum PostgresIsolationLevel: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

extension PostgresConnection {
    /// Runs `body` inside `BEGIN … COMMIT`. If `body` throws, the transaction is rolled back
    /// and the error rethrown; if `COMMIT` fails (e.g. a serialization failure), its
    /// `PostgresError` is thrown. Nested calls throw `.invalidUsage` (no implicit savepoints).
    ///
    /// `settingLocally`: run-time settings made `SET LOCAL` in the same round trip as `BEGIN` (one
    /// simple query: `BEGIN …; SET LOCAL name = 'value'`), e.g. the tenant of row-level security.
    /// Names are `name` or `class.name` identifiers; values may hold only letters, digits, `_`, `-`
    /// and `.` (they are spliced into the text as literals); anything else throws `.invalidUsage`.
    ///
    /// While `body` runs, `openTransactionSerial` names this transaction; once its `COMMIT`
    /// succeeded on a transaction that was open and not aborted, `committedTransactionSerial` is
    /// that serial (a caller that did work in the transaction can tell, after it returned, that the
    /// work committed — `COMMIT` of an aborted transaction "succeeds" as a rollback).
    ///
    /// The body may throw any error; errors from the database are `PostgresError`.
    public func transaction<T>(
        isolation: PostgresIsolationLevel = .readCommitted,
        readOnly: Bool = false,
        settingLocally settings: [(name: String, value: String)] = [],
        _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        guard !isInTransaction else {
            throw PostgresError.invalidUsage("transaction() called while a transaction is already open")
        }
        let begin = "BEGIN ISOLATION LEVEL \(isolation.rawValue)\(readOnly ? " READ ONLY" : "")"
        if settings.isEmpty {
            try execute(begin)
        } else {
            var script = begin
            for setting in settings {
                guard Self.isSettingName(setting.name), Self.isPlainSettingValue(setting.value) else {
                    throw PostgresError.invalidUsage("transaction(settingLocally:): refused setting \(setting.name) = \(setting.value)")
                }
                script += "; SET LOCAL \(setting.name) = '\(setting.value)'"
            }
            do {
                try executeScript(script)
            } catch {
                rollbackQuietly()
                throw error
            }
        }
        transactionSerial += 1
        let serial = transactionSerial
        openTransactionSerial = serial
        defer { openTransactionSerial = nil }
        let value: T
        do {
            value = try body(self)
        } catch {
            rollbackQuietly()
            throw error
        }
        do {
            let stillOpen = handle.map { PQtransactionStatus($0) == PQTRANS_INTRANS } ?? false
            let result = try execute("COMMIT")
            if stillOpen && result.commandTag == "COMMIT" { committedTransactionSerial = serial }
        } catch {
            rollbackQuietly()
            throw error
        }
        return value
    }

    /// Rolls back if a transaction is open; errors (e.g. a lost connection) are ignored because
    /// the server discards an unfinished transaction anyway.
    func rollbackQuietly() {
        guard isOpen, isInTransaction else { return }
        _ = try? execute("ROLLBACK")
    }

    /// `name` or `class.name`, each part an ASCII identifier.
    static func isSettingName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return false }
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, first == UInt8(ascii: "_") || isASCIILetter(first) else { return false }
            return part.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isASCIILetter($0) || isASCIIDigit($0) }
        }
    }

    /// Letters, digits, `_`, `-`, `.`: safe between single quotes whatever the session's settings.
    static func isPlainSettingValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { isASCIILetter($0) || isASCIIDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    private static func isASCIILetter(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
    private static func isASCIIDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
}
