import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// Runs `body` and returns the PostgresError it threw (nil if none or another error).
func postgresError(_ body: () throws -> Void) -> PostgresError? {
    do { try body() } catch let error as PostgresError { return error } catch { return nil }
    return nil
}

@Suite("Error kinds from SQLSTATE")
struct ErrorKindTests {
    @Test("SQLSTATE codes map to kinds")
    func sqlStateMapping() {
        let expected: [String: PostgresError.Kind] = [
            "23505": .uniqueViolation, "23503": .foreignKeyViolation, "23514": .checkViolation,
            "23502": .notNullViolation, "40001": .serializationFailure, "40P01": .deadlock,
            "57014": .queryCanceled, "42501": .insufficientPrivilege, "08006": .connectionLost,
            "08003": .connectionLost, "57P01": .connectionLost, "55P03": .lockNotAvailable,
            "42601": .syntaxOrAccessRule, "22003": .dataException, "XX000": .other,
        ]
        for (state, kind) in expected {
            #expect(PostgresError.kind(forSQLState: state) == kind, "\(state)")
        }
    }

    @Test("unique, foreign key, check and not-null violations carry kind, constraint and detail")
    func constraintViolations() throws {
        let database = try TestDatabase.create("constraint_errors")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.executeScript("""
            CREATE TABLE employer (id int8 PRIMARY KEY);
            CREATE TABLE employee (id int8 PRIMARY KEY, employer_id int8 NOT NULL REFERENCES employer,
                                   wage_won int8 NOT NULL CONSTRAINT wage_positive CHECK (wage_won > 0));
            INSERT INTO employer VALUES (1);
            INSERT INTO employee VALUES (1, 1, 10030);
            """)
        let unique = postgresError { try connection.execute("INSERT INTO employee VALUES ($1, 1, 1)", [1]) }
        #expect(unique?.kind == .uniqueViolation)
        #expect(unique?.sqlState == "23505")
        #expect(unique?.constraint == "employee_pkey")
        #expect(unique?.detail?.contains("(id)=(1)") == true)
        #expect(unique?.description.contains("detail:") == true)
        let foreign = postgresError { try connection.execute("INSERT INTO employee VALUES (2, $1, 1)", [99]) }
        #expect(foreign?.kind == .foreignKeyViolation)
        let check = postgresError { try connection.execute("INSERT INTO employee VALUES (3, 1, $1)", [-5]) }
        #expect(check?.kind == .checkViolation)
        #expect(check?.constraint == "wage_positive")
        let notNull = postgresError { try connection.execute("INSERT INTO employee VALUES (4, 1, $1)", [nil]) }
        #expect(notNull?.kind == .notNullViolation)
        let syntax = postgresError { try connection.execute("SELEC 1") }
        #expect(syntax?.kind == .syntaxOrAccessRule)
        // The connection is still usable after errors.
        #expect(try connection.query("SELECT 1").count == 1)
    }

    @Test("insufficient privilege is reported as such")
    func insufficientPrivilege() throws {
        let database = try TestDatabase.create("privilege")
        defer { database.drop() }
        let connection = try database.connect()
        let role = "payrun_test_reader_\(getpid())"
        try connection.execute("CREATE TABLE secret (id int8)")
        try connection.execute("DROP ROLE IF EXISTS \(role)")
        try connection.execute("CREATE ROLE \(role)")
        defer { _ = try? connection.execute("DROP ROLE IF EXISTS \(role)") }
        try connection.execute("SET ROLE \(role)")
        let error = postgresError { try connection.execute("SELECT * FROM secret") }
        #expect(error?.kind == .insufficientPrivilege)
        try connection.execute("RESET ROLE")
        try connection.execute("DROP TABLE secret")
    }

    @Test("two SERIALIZABLE transactions on two threads: one fails with serializationFailure")
    func serializationFailure() throws {
        let database = try TestDatabase.create("serialization")
        defer { database.drop() }
        let setup = try database.connect()
        try setup.executeScript("CREATE TABLE ledger (class int4, amount int8); INSERT INTO ledger VALUES (1, 10), (2, 20);")
        let url = database.url
        let readA = DispatchSemaphore(value: 0)
        let readB = DispatchSemaphore(value: 0)
        func worker(readClass: Int32, writeClass: Int32, mine: DispatchSemaphore, theirs: DispatchSemaphore) -> TestThread {
            TestThread {
                let connection = try PostgresConnection(url: url)
                do {
                    try connection.transaction(isolation: .serializable) { tx in
                        let sum = try tx.query("SELECT coalesce(sum(amount), 0)::int8 FROM ledger WHERE class = $1", [.int32(readClass)])
                        mine.signal()
                        theirs.wait()
                        try tx.execute("INSERT INTO ledger VALUES ($1, $2)", [.int32(writeClass), .int(try sum[0].int64(at: 0))])
                    }
                } catch {
                    mine.signal() // never leave the other thread waiting
                    throw error
                }
            }
        }
        let a = worker(readClass: 1, writeClass: 2, mine: readA, theirs: readB)
        let b = worker(readClass: 2, writeClass: 1, mine: readB, theirs: readA)
        let errors = [a.join(), b.join()].compactMap { $0 }
        #expect(errors.count == 1)
        #expect((errors.first as? PostgresError)?.kind == .serializationFailure)
        #expect((errors.first as? PostgresError)?.isTransient == true)
    }

    @Test("two transactions locking rows in opposite order: one fails with deadlock")
    func deadlock() throws {
        let database = try TestDatabase.create("deadlock")
        defer { database.drop() }
        let setup = try database.connect()
        try setup.executeScript("CREATE TABLE t (id int8 PRIMARY KEY, n int8); INSERT INTO t VALUES (1, 0), (2, 0);")
        let url = database.url
        let lockedA = DispatchSemaphore(value: 0)
        let lockedB = DispatchSemaphore(value: 0)
        func worker(first: Int64, second: Int64, mine: DispatchSemaphore, theirs: DispatchSemaphore) -> TestThread {
            TestThread {
                let connection = try PostgresConnection(url: url)
                try connection.transaction { tx in
                    try tx.execute("UPDATE t SET n = n + 1 WHERE id = $1", [.int(first)])
                    mine.signal()
                    theirs.wait()
                    try tx.execute("UPDATE t SET n = n + 1 WHERE id = $1", [.int(second)])
                }
            }
        }
        let a = worker(first: 1, second: 2, mine: lockedA, theirs: lockedB)
        let b = worker(first: 2, second: 1, mine: lockedB, theirs: lockedA)
        let errors = [a.join(), b.join()].compactMap { $0 }
        #expect(errors.count == 1)
        #expect((errors.first as? PostgresError)?.kind == .deadlock)
    }

    @Test("statement timeout surfaces as queryCanceled")
    func queryCanceled() throws {
        let database = try TestDatabase.create("canceled")
        defer { database.drop() }
        let connection = try database.connect()
        try connection.execute("SET statement_timeout = 50")
        let error = postgresError { try connection.execute("SELECT pg_sleep(5)") }
        #expect(error?.kind == .queryCanceled)
    }
}
