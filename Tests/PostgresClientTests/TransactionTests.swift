import PostgresClient
import PostgresTestSupport
import Testing

struct Refusal: Error {}

@Suite("Transactions")
struct TransactionTests {
    @Test("transaction commits the body's work and returns its value")
    func commits() throws {
        let database = try TestDatabase.create("tx_commit")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE t (id int8)")
        let inserted = try connection.transaction { tx in
            try tx.execute("INSERT INTO t VALUES (1), (2)").affectedRowCount
        }
        #expect(inserted == 2)
        #expect(!connection.isInTransaction)
        let other = try database.connect()
        #expect(try other.query("SELECT id FROM t").count == 2)
    }

    @Test("transaction rolls back when the body throws, and rethrows the error")
    func rollsBackOnThrow() throws {
        let database = try TestDatabase.create("tx_rollback")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("CREATE TABLE t (id int8)")
        #expect(throws: Refusal.self) {
            try connection.transaction { tx in
                try tx.execute("INSERT INTO t VALUES (1)")
                throw Refusal()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.query("SELECT id FROM t").isEmpty)
        // A failing statement inside also rolls back and leaves the connection usable.
        #expect(throws: PostgresError.self) {
            try connection.transaction { tx in
                try tx.execute("INSERT INTO t VALUES (2)")
                try tx.execute("INSERT INTO t VALUES ('x')")
            }
        }
        #expect(try connection.query("SELECT id FROM t").isEmpty)
    }

    @Test("nested transaction() is refused with invalidUsage")
    func nestedRefused() throws {
        let database = try TestDatabase.create("tx_nested")
        defer { database.drop() }
        let connection = try database.connect()
        #expect {
            try connection.transaction { tx in
                try tx.transaction { _ in }
            }
        } throws: { error in
            (error as? PostgresError)?.kind == .invalidUsage
        }
        #expect(!connection.isInTransaction)
    }
}
