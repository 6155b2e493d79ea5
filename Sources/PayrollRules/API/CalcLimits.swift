/// Limits on the size of one `payrun calc` request. Every limit is checked while decoding; a
/// request beyond one gets an error response naming the field (`unsupported` for a request line
/// that is too long, `invalid_value` for the others) and the process goes on with the next line.
public enum CalcLimits {
    /// Longest request line in bytes (1 MiB), for `payrun calc` and `payrun tax` alike. A longer
    /// line (possibly valid JSON, only too large) is answered with `unsupported` without
    /// being buffered beyond this size; the rest of it is skipped up to the next newline.
    public static let lineBytesMax = 1 << 20
    /// Deepest JSON nesting accepted, both commands (a valid calc request nests 4 levels).
    public static let jsonDepthMax = 32
    /// Shifts per request (a 31-day period plus the weeks around it rarely needs 100).
    public static let shiftsMax = 1_000
    /// Explicit break windows per shift.
    public static let breaksPerShiftMax = 100
    /// Dates in `workplace.holidays`.
    public static let holidaysMax = 400
    /// Entries in `absences`.
    public static let absencesMax = 100
    /// Longest `employee.id`, in UTF-8 bytes.
    public static let employeeIdBytesMax = 256
    /// Longest period, in days (inclusive).
    public static let periodDaysMax = 31
    /// Shifts and absences may lie this many days outside the period (the weeks around it,
    /// calc-api: "the whole weeks around the period are needed").
    public static let daysAroundPeriodMax = 7
    /// Longest shift, in minutes (24 h).
    public static let shiftMinutesMax: Int64 = 1440
    /// Largest wage (원 per hour, day or month) and largest other amount in a request (non-taxable
    /// items, declared insurance bases): 1,000,000,000원. Keeps every product far inside Int64.
    public static let amountWonMax: Int64 = 1_000_000_000
    /// Largest `family` (공제대상가족 수).
    public static let familyMax = 99
}
