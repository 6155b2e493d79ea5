import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Peak resident memory of this process, from Linux's /proc.
enum ProcessMemory {
    /// Returns freed heap to the system, then resets the peak (VmHWM) to the current RSS by writing
    /// "5" to /proc/self/clear_refs (Linux ≥ 4.0). False when the kernel refused.
    static func resetPeak() -> Bool {
        #if canImport(Glibc)
        // malloc_trim (glibc, <malloc.h>, not in the Glibc module): looked up at run time.
        if let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") {
            typealias MallocTrim = @convention(c) (Int) -> Int32
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        }
        #endif
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// VmHWM (peak RSS since start or the last reset), in KiB.
    static func peakKiB() -> Int? { statusField("VmHWM:") }

    /// VmRSS (current), in KiB.
    static func currentKiB() -> Int? { statusField("VmRSS:") }

    private static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}

/// What the figures were measured on.
struct MachineInfo {
    var cores: Int
    var memoryKiB: Int?
    var loadAverage: String?
    var commit: String?
    var date: String
    var host: String

    static func current(repository: String?) -> MachineInfo {
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let memory = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { Int($0.dropFirst("MemTotal:".count).split(separator: " ").first ?? "") }
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
            .map { $0.split(separator: " ").prefix(3).joined(separator: " ") }
        var commit: String?
        if let repository { commit = gitCommit(repository) }
        let formatter = ISO8601DateFormatter()
        return MachineInfo(cores: ProcessInfo.processInfo.activeProcessorCount, memoryKiB: memory, loadAverage: load,
                           commit: commit, date: formatter.string(from: Date()), host: ProcessInfo.processInfo.hostName)
    }

    /// CPU-seconds the hypervisor gave to others while this machine's vCPUs wanted to run ("steal",
    /// the eighth number of /proc/stat's `cpu` line, all vCPUs together) since boot, or nil where
    /// the kernel does not report it. Time taken by the host's other work on a vCPU's hardware
    /// thread's sibling is not steal: the vCPU runs, only slower.
    static func stealSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let fields = line.split(separator: " ").dropFirst()
        guard fields.count >= 8, let ticks = Double(fields[fields.startIndex + 7]) else { return nil }
        let hertz = sysconf(Int32(_SC_CLK_TCK))
        return hertz > 0 ? ticks / Double(hertz) : nil
    }

    /// `git rev-parse --short HEAD` (plus `-dirty` when the tree has changes), or nil.
    static func gitCommit(_ directory: String) -> String? {
        func git(_ arguments: [String]) -> String? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["git", "-C", directory] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch { return nil }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { return nil }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let head = git(["rev-parse", "--short", "HEAD"]), !head.isEmpty else { return nil }
        let dirty = git(["status", "--porcelain", "--untracked-files=no"]).map { !$0.isEmpty } ?? false
        return dirty ? head + "-dirty" : head
    }
}
