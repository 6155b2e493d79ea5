import Foundation
import PostgresClient
import Synchronization
import Testing
@testable import PayrollStore

@Suite("Migrator against PostgreSQL")
struct MigratorTests {
    @Test("migrate on an empty database applies every migration, in order")
    func migrate_emptyDatabase_appliesAll() throws {
        let connection = try StoreTestDatabase.connectToEmpty("migrate_empty")
        let migrator = try Migrator()
        let applied = try migrator.migrate(connection)
        #expect(applied.map(\.version) == migrator.migrations.map(\.version))
        #expect(applied.count >= 4)

        let recorded = try migrator.readApplied(connection)
        #expect(recorded.map(\.version) == migrator.migrations.map(\.version))
        #expect(recorded.map(\.checksum) == migrator.migrations.map(\.checksum))
        #expect(recorded.map(\.name) == migrator.migrations.map(\.name))
        // The schema is really there.
        let tables = try connection.queryOne(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'payrun' AND tablename = ANY($1)",
            [.textArray(["tenants", "workplaces", "employees", "contracts", "shifts", "absences", "holidays",
                         "payroll_runs", "payslips", "jobs", "payslip_staging", "pending_corrections"])])
        #expect(try tables?.int(at: 0) == 12)
    }

    @Test("migrate twice is a no-op")
    func migrate_twice_isNoOp() throws {
        let connection = try StoreTestDatabase.connectToEmpty("migrate_twice")
        let migrator = try Migrator()
        try migrator.migrate(connection)
        let before = try migrator.readApplied(connection)
        let second = try migrator.migrate(connection)
        #expect(second.isEmpty)
        #expect(try migrator.readApplied(connection) == before)
        #expect(try migrator.status(connection).allSatisfy { $0.state == .applied })
    }

    @Test("two migrators at once, on two threads, apply each migration exactly once")
    func migrate_concurrently_appliesEachOnce() throws {
        for round in 0..<3 {
            let url = try StoreTestDatabase.createEmpty("migrate_concurrent_\(round)")
            let migrator = try Migrator()
            let outcomes = Mutex<[Result<[Int], MigrationError>]>([])
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for _ in 0..<2 {
                done.enter()
                let thread = Thread {
                    defer { done.leave() }
                    let outcome: Result<[Int], MigrationError>
                    do {
                        let connection = try PostgresConnection(url: url)
                        start.wait()  // both connected: start together
                        outcome = .success(try migrator.migrate(connection).map(\.version))
                    } catch let error as MigrationError {
                        outcome = .failure(error)
                    } catch {
                        outcome = .failure(.database(PostgresError(kind: .other, message: "\(error)")))
                    }
                    outcomes.withLock { $0.append(outcome) }
                }
                thread.start()
            }
            start.signal()
            start.signal()
            done.wait()

            let results = try outcomes.withLock { list in try list.map { try $0.get() } }
            #expect(results.count == 2)
            let all = results.flatMap { $0 }
            #expect(all.sorted() == migrator.migrations.map(\.version), "each migration applied once in round \(round)")
            let connection = try PostgresConnection(url: url)
            let rows = try connection.queryOne("SELECT count(*), count(DISTINCT version) FROM payrun.schema_migrations")
            #expect(try rows?.int(at: 0) == migrator.migrations.count)
            #expect(try rows?.int(at: 1) == migrator.migrations.count)
        }
    }

    @Test("a changed file of an applied migration is refused, and nothing more is applied")
    func migrate_changedAppliedFile_isRefused() throws {
        let connection = try StoreTestDatabase.connectToEmpty("migrate_changed")
        let directory = try TemporaryDirectory()
        try directory.copyMigrations(from: PackagePaths.sqlMigrations, first: 2)
        try Migrator(directory: directory.path).migrate(connection)

        // Edit an applied migration and add a new one.
        let edited = try MigrationSource.load(directory: directory.path)[1]
        try directory.write(edited.fileName, edited.sql + "\n-- an innocent-looking edit\n")
        try directory.write("0099_later.sql", "CREATE TABLE payrun.should_not_exist (id int);")
        let migrator = try Migrator(directory: directory.path)
        #expect {
            try migrator.migrate(connection)
        } throws: { error in
            guard case MigrationError.checksumMismatch(let version, _, let applied, let file) = error else { return false }
            return version == edited.version && applied == edited.checksum && file != applied
        }
        #expect(try migrator.readApplied(connection).map(\.version) == [1, 2])
        let table = try connection.queryOne("SELECT to_regclass('payrun.should_not_exist') IS NULL")
        #expect(try table?.bool(at: 0) == true)
        #expect(try migrator.status(connection).map(\.state) == [.applied, .changed, .pending])
    }

    @Test("status lists applied and pending migrations, and applied ones without a file")
    func status_listsAppliedAndPending() throws {
        let connection = try StoreTestDatabase.connectToEmpty("status")
        let full = try Migrator()
        // Never migrated: everything pending, and status creates nothing.
        #expect(try full.status(connection).map(\.state) == full.migrations.map { _ in .pending })
        let created = try connection.queryOne("SELECT to_regclass('payrun.schema_migrations') IS NULL")
        #expect(try created?.bool(at: 0) == true)

        let directory = try TemporaryDirectory()
        try directory.copyMigrations(from: PackagePaths.sqlMigrations, first: 2)
        try Migrator(directory: directory.path).migrate(connection)

        let lines = try full.status(connection)
        #expect(lines.map(\.version) == full.migrations.map(\.version))
        #expect(lines.prefix(2).allSatisfy { $0.state == .applied && $0.appliedAt != nil })
        #expect(lines.dropFirst(2).allSatisfy { $0.state == .pending && $0.appliedAt == nil })
        #expect(lines[0].name == "schema")

        // A database migrated further than the files this payrun has.
        let older = try Migrator(migrations: Array(full.migrations.prefix(1)))
        let olderLines = try older.status(connection)
        #expect(olderLines.map(\.state) == [.applied, .missingFile])
        #expect(throws: MigrationError.self) { try older.migrate(connection) }
    }

    @Test("a failing migration is rolled back entirely and not recorded")
    func migrate_failingMigration_rollsBack() throws {
        let connection = try StoreTestDatabase.connectToEmpty("migrate_failing")
        let migrator = try Migrator(migrations: [
            Migration(version: 1, name: "good", sql: "CREATE SCHEMA IF NOT EXISTS payrun; CREATE TABLE payrun.t1 (id int);"),
            Migration(version: 2, name: "bad", sql: "CREATE TABLE payrun.t2 (id int); SELECT no_such_function();"),
        ])
        #expect {
            try migrator.migrate(connection)
        } throws: { error in
            guard case MigrationError.migrationFailed(2, "bad", let cause) = error else { return false }
            return cause.message.contains("no_such_function")
        }
        #expect(try migrator.readApplied(connection).map(\.version) == [1])
        let t2 = try connection.queryOne("SELECT to_regclass('payrun.t2') IS NULL, to_regclass('payrun.t1') IS NULL")
        #expect(try t2?.bool(at: 0) == true)
        #expect(try t2?.bool(at: 1) == false)
    }

    @Test("a new migration numbered below an applied one is refused")
    func migrate_outOfOrder_isRefused() throws {
        let connection = try StoreTestDatabase.connectToEmpty("migrate_out_of_order")
        let one = Migration(version: 1, name: "one", sql: "CREATE SCHEMA IF NOT EXISTS payrun;")
        let three = Migration(version: 3, name: "three", sql: "SELECT 3;")
        try Migrator(migrations: [one, three]).migrate(connection)
        let withTwo = try Migrator(migrations: [one, Migration(version: 2, name: "two", sql: "SELECT 2;"), three])
        #expect {
            try withTwo.migrate(connection)
        } throws: { error in
            guard case MigrationError.outOfOrder(2, "two", 3) = error else { return false }
            return true
        }
    }
}
