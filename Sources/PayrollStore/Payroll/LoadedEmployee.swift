import PayrollRules

/// One employee of a loaded chunk: its validated input, or why it cannot be computed.
public struct LoadedEmployee: Sendable {
    public var employeeId: Int64
    /// 사원번호 (for messages and payslips).
    public var employeeNumber: String?
    /// The validated input, or the load/validation error naming the record and field
    /// (`shifts[id=123].end`, `contract`).
    public var input: Result<PayrollInput, PayrollError>
    /// `InputDigest` of the input, when it was built.
    public var inputDigest: [UInt8]?
}

/// The result of `ChunkLoader.load`: employees in id order.
public struct LoadedChunk: Sendable {
    public var run: PayrollRun
    public var employees: [LoadedEmployee]
    /// Requested ids (`.one`) that do not exist in this tenant and workplace; they cannot get a
    /// payslip row (its foreign key), so callers must report them.
    public var missingEmployeeIds: [Int64]
    /// Shift rows read for these employees (all of them, also those of employees that failed).
    public var shiftsLoaded: Int = 0
}
