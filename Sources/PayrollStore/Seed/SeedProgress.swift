/// Where a running seed is: its phase (`tenants`, `employees`, `analyze`, …) and how many of the
/// employees have been written with all their rows.
public struct SeedProgress: Sendable {
    public var phase: String
    public var employeesWritten: Int
    public var employeesTotal: Int

    public init(phase: String, employeesWritten: Int, employeesTotal: Int) {
        self.phase = phase
        self.employeesWritten = employeesWritten
        self.employeesTotal = employeesTotal
    }
}
