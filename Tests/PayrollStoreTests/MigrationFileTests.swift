import Foundation
import Testing
@testable import PayrollStore

@Suite("Migration files")
struct MigrationFileTests {
    @Test("SHA-256 matches the FIPS 180-4 test vectors")
    func sha256_matchesStandardVectors() {
        #expect(SHA256.hexDigest(Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // One million 'a': several blocks and a length that needs the full 64-bit length field.
        #expect(SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("file names are NNNN_name.sql")
    func fileNames_parseNumberAndName() {
        #expect(Migration.parseFileName("0001_schema.sql")! == (1, "schema"))
        #expect(Migration.parseFileName("0003_holidays_2025_2026.sql")! == (3, "holidays_2025_2026"))
        #expect(Migration.parseFileName("12345_big.sql")! == (12345, "big"))
        for bad in ["001_short.sql", "0001-schema.sql", "0001_.sql", "0001_Schema.sql", "0000_zero.sql",
                    "abcd_x.sql", "0001_schema.SQL", "0001_schema", "0001_sch ema.sql"] {
            #expect(Migration.parseFileName(bad) == nil, "\(bad) must be refused")
        }
        #expect(Migration(version: 3, name: "holidays", sql: "").fileName == "0003_holidays.sql")
    }

    @Test("loading sorts by number, ignores other files, refuses bad names and duplicates")
    func load_sortsAndValidates() throws {
        let directory = try TemporaryDirectory()
        try directory.write("0002_b.sql", "SELECT 2;")
        try directory.write("0001_a.sql", "SELECT 1;")
        try directory.write(".keep", "")
        try directory.write("README.md", "notes")
        let loaded = try MigrationSource.load(directory: directory.path)
        #expect(loaded.map(\.fileName) == ["0001_a.sql", "0002_b.sql"])
        #expect(loaded[0].checksum == SHA256.hexDigest(Array("SELECT 1;".utf8)))

        try directory.write("0002_again.sql", "SELECT 2;")
        #expect {
            try MigrationSource.load(directory: directory.path)
        } throws: { error in
            guard case MigrationError.duplicateVersion(2, let names) = error else { return false }
            return names == ["0002_again.sql", "0002_b.sql"]
        }
        try directory.remove("0002_again.sql")

        try directory.write("3_typo.sql", "SELECT 3;")
        #expect {
            try MigrationSource.load(directory: directory.path)
        } throws: { error in
            guard case MigrationError.invalidFileName(let path) = error else { return false }
            return path.hasSuffix("3_typo.sql")
        }
    }

    @Test("an empty or missing directory is an error, not zero migrations")
    func load_refusesEmptyOrMissingDirectory() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: MigrationError.self) { try MigrationSource.load(directory: directory.path) }
        #expect(throws: MigrationError.self) { try MigrationSource.load(directory: directory.path + "/missing") }
    }

    @Test("the default directory is the bundled copy of sql/migrations, file for file")
    func defaultDirectory_isTheBundledCopyOfSqlMigrations() throws {
        let defaultDirectory = try MigrationSource.defaultDirectory()
        #expect(defaultDirectory.hasSuffix("payrun_PayrollStore.resources/Migrations"),
                "SwiftPM should have bundled the migrations next to the test runner; found \(defaultDirectory)")
        let bundled = try MigrationSource.load(directory: defaultDirectory)
        let repository = try MigrationSource.load(directory: PackagePaths.sqlMigrations)
        #expect(bundled.map(\.fileName) == repository.map(\.fileName))
        #expect(bundled.map(\.checksum) == repository.map(\.checksum))
        #expect(bundled.map(\.fileName).prefix(3) == ["0001_schema.sql", "0002_rls_roles.sql", "0003_holidays_2025_2026.sql"])
    }
}

/// Paths inside this package, found from this file's location.
enum PackagePaths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let sqlMigrations = root + "/sql/migrations"
}

/// A directory under /tmp removed when the value is deinitialized.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "payrun-migrations-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ fileName: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + fileName))
    }

    func remove(_ fileName: String) throws {
        try FileManager.default.removeItem(atPath: path + "/" + fileName)
    }

    /// Copies the first `count` migrations of `source` (all when nil) into this directory.
    func copyMigrations(from source: String, first count: Int? = nil) throws {
        let migrations = try MigrationSource.load(directory: source)
        for migration in migrations.prefix(count ?? migrations.count) {
            try write(migration.fileName, migration.sql)
        }
    }
}
