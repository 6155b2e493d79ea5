import ArgumentParser

/// `payrun bench`: throughput of the month-end against the physical floor and a SQL peer
/// (`payrun bench run`, the default), and of the job queue (`payrun bench queue`).
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark month-end throughput (default) or the job queue (bench queue).",
        subcommands: [BenchRunCommand.self, BenchQueueCommand.self],
        defaultSubcommand: BenchRunCommand.self)
}

/// Options both benchmarks share: where the server is.
struct BenchServerOptions: ParsableArguments {
    @Option(name: .customLong("database-url"),
            help: ArgumentHelp("A server where this role may CREATE DATABASE (default: $DATABASE_URL, else the private cluster .pg-bench).",
                               valueName: "url"))
    var databaseURL: String?

    @Flag(name: .customLong("keep-cluster"), help: "Leave the private cluster running afterwards.")
    var keepCluster = false
}
