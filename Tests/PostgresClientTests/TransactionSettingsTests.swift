import PostgresClient
import PostgresTestSupport
import Testing

/// `transaction(settingLocally:)` (BEGIN and SET LOCAL in one round trip) and the serials that let a
/// caller tell, after `transaction` returned, whether its work committed.
@Suite("Transaction settings and commit serials")
struct TransactionSettingsTests {
    @Test("settingLocally: the setting holds inside the transaction only, like set_config(…, true)")
    func localSettingInsideOnly() throws {
        let database = try TestDatabase.create("tx_settings")
        defer { database.drop() }
        let connection = try database.connect()
        let inside = try connection.transaction(settingLocally: [(name: "payrun.tenant_id", value: "42"),
                                                                 (name: "application_name", value: "payrun-test_1.0")]) { tx in
            try tx.queryOne("SELECT current_setting('payrun.tenant_id'), current_setting('application_name')")
                .map { [try $0.string(at: 0), try $0.string(at: 1)] }
        }
        #expect(inside == ["42", "payrun-test_1.0"])
        #expect(!connection.isInTransaction)
        let after = try connection.queryOne("SELECT coalesce(current_setting('payrun.tenant_id', true), '')")?.string(at: 0)
        #expect(after == "")
    }

    @Test("settingLocally refuses names and values it cannot splice safely, before BEGIN")
    func refusesUnsafeSettings() throws {
        let database = try TestDatabase.create("tx_settings_refused")
        defer { database.drop() }
        let connection = try database.connect()
        for setting in [(name: "payrun.tenant_id", value: "1'; DROP TABLE x; --"), (name: "a b", value: "1"),
                        (name: "a.b.c", value: "1"), (name: "payrun.tenant_id", value: "1\\")] {
            #expect {
                try connection.transaction(settingLocally: [setting]) { _ in }
            } throws: { error in
                (error as? PostgresError)?.kind == .invalidUsage
            }
            #expect(!connection.isInTransaction)
        }
        // An unknown built-in setting fails on the server: the transaction is not left open.
        #expect(throws: PostgresError.self) {
            try connection.transaction(settingLocally: [(name: "no_such_setting", value: "1")]) { _ in }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.queryOne("SELECT 1")?.int(at: 0) == 1)
    }

    @Test("committedTransactionSerial names a transaction only once its COMMIT really committed")
    func commitSerials() throws {
        let database = try TestDatabase.create("tx_serials")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE t (id int8)")
        #expect(connection.openTransactionSerial == nil)
        var first: Int?
        try connection.transaction { tx in
            first = tx.openTransactionSerial
            try tx.execute("INSERT INTO t VALUES (1)")
        }
        #expect(first != nil)
        #expect(connection.committedTransactionSerial == first)
        #expect(connection.openTransactionSerial == nil)

        // A body that swallows a failed statement: COMMIT of the aborted transaction rolls back.
        var second: Int?
        try connection.transaction { tx in
            second = tx.openTransactionSerial
            try tx.execute("INSERT INTO t VALUES (2)")
            _ = try? tx.execute("INSERT INTO t VALUES ('x')")
        }
        #expect(second != nil && second != first)
        #expect(connection.committedTransactionSerial == first)
        #expect(try connection.query("SELECT id FROM t").count == 1)

        // A body that throws.
        var third: Int?
        #expect(throws: Refusal.self) {
            try connection.transaction { tx in
                third = tx.openTransactionSerial
                throw Refusal()
            }
        }
        #expect(third != nil && third != second)
        #expect(connection.committedTransactionSerial == first)

        // A body that ends the transaction itself: its ROLLBACK wins, nothing is counted as committed.
        var fourth: Int?
        try connection.transaction { tx in
            fourth = tx.openTransactionSerial
            try tx.execute("INSERT INTO t VALUES (4)")
            try tx.execute("ROLLBACK")
        }
        #expect(fourth != nil)
        #expect(connection.committedTransactionSerial == first)
        #expect(try connection.query("SELECT id FROM t").count == 1)

        try connection.transaction(settingLocally: [(name: "payrun.tenant_id", value: "7")]) { tx in
            _ = try tx.execute("INSERT INTO t VALUES (5)")
        }
        #expect(connection.committedTransactionSerial != first)
        #expect(try connection.query("SELECT id FROM t").count == 2)
    }
}
