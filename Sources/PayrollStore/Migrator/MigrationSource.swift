import Foundation

/// Where migration files come from: a directory of `NNNN_name.sql` files.
///
/// The files live in `Sources/PayrollStore/Migrations` (`sql/migrations` is a symlink to it) and
/// are copied by SwiftPM into the resource bundle `payrun_PayrollStore.resources/Migrations` next
/// to every built executable and test runner. `defaultDirectory()` finds that copy without going
/// through `Bundle.module`, whose accessor traps when the bundle is missing (a binary copied
/// somewhere without its `.resources` directory): payrun then reports a clear error instead.
public enum MigrationSource {
    /// Name of the resource bundle SwiftPM makes for this target (`<package>_<target>.resources`).
    static let bundleName = "payrun_PayrollStore.resources"

    /// Directories searched by `defaultDirectory()`, in order.
    public static func defaultDirectoryCandidates() -> [String] {
        var candidates: [String] = []
        func addBundle(nextTo directory: URL) {
            let path = directory.appendingPathComponent(bundleName).appendingPathComponent("Migrations").path
            if !candidates.contains(path) { candidates.append(path) }
        }
        // The executable's directory, then that of the file it is a symlink of (installed links).
        addBundle(nextTo: Bundle.main.bundleURL)
        if let executable = Bundle.main.executableURL {
            addBundle(nextTo: executable.deletingLastPathComponent())
            addBundle(nextTo: executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        // The source tree this binary was built from (development, `swift run`, `swift test`).
        let sourceTree = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Migrator
            .deletingLastPathComponent()  // PayrollStore
            .appendingPathComponent("Migrations").path
        candidates.append(sourceTree)
        return candidates
    }

    /// The first candidate directory that exists.
    public static func defaultDirectory() throws(MigrationError) -> String {
        let candidates = defaultDirectoryCandidates()
        for path in candidates where isDirectory(path) { return path }
        throw .noDefaultDirectory(searched: candidates)
    }

    /// Reads every migration of `directory`, sorted by version. Hidden files and files not ending
    /// in `.sql` are ignored (`.keep`, `README.md`); a `.sql` file with a malformed name, two files
    /// with one number, or an empty directory are errors.
    public static func load(directory: String) throws(MigrationError) -> [Migration] {
        guard isDirectory(directory),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { throw .directoryNotFound(path: directory) }

        var migrations: [Migration] = []
        for fileName in entries.sorted() where !fileName.hasPrefix(".") && fileName.hasSuffix(".sql") {
            let path = (directory as NSString).appendingPathComponent(fileName)
            guard let (version, name) = Migration.parseFileName(fileName) else {
                throw .invalidFileName(path: path)
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .unreadableFile(path: path, reason: "cannot open")
            }
            guard let sql = String(data: data, encoding: .utf8) else {
                throw .unreadableFile(path: path, reason: "not UTF-8 text")
            }
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        guard !migrations.isEmpty else { throw .noMigrations(path: directory) }
        return try validated(migrations)
    }

    /// Sorts by version and refuses duplicate numbers.
    public static func validated(_ migrations: [Migration]) throws(MigrationError) -> [Migration] {
        let sorted = migrations.sorted { ($0.version, $0.name) < ($1.version, $1.name) }
        var index = 0
        while index + 1 < sorted.count {
            if sorted[index].version == sorted[index + 1].version {
                let same = sorted.filter { $0.version == sorted[index].version }.map(\.fileName)
                throw .duplicateVersion(version: sorted[index].version, fileNames: same)
            }
            index += 1
        }
        return sorted
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
