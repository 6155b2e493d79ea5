import ArgumentParser

@main
struct Payrun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "payrun",
        abstract: "Multi-tenant batch payroll for Korean employers, on PostgreSQL.",
        discussion: """
            Computes hours, premiums, 주휴수당, 4대보험, 간이세액 withholding and net pay, with the
            계산방법 each 임금명세서 line must show. See README.md.
            """,
        subcommands: [CalcCommand.self, TaxCommand.self, DBCommand.self,
                      WorkerCommand.self, JobsCommand.self,
                      ScheduleCommand.self, RunsCommand.self, PayslipCommand.self, EnqueueCommand.self, DemoCommand.self, SeedCommand.self,
                      BenchCommand.self]
    )
}
