/// The statutory working-time numbers the time side of the engine uses (근로기준법 §18③, §50,
/// §54, §55, §56; 기간제법 §6③; 시행령 §30), as one effective-dated value. Every number is stated
/// in the unit its name carries. The engine resolves one version per period (see
/// `WorkingTimeRules.resolve`), so a change in the law lands as a new version here.
public struct WorkingTimeRules: Sendable, Hashable {
    /// §50②: 1일 8시간.
    public var dailyLimitMinutes: Int64
    /// §50①: 1주 40시간.
    public var weeklyLimitMinutes: Int64
    /// §56③: 야간 is [nightStart, 24:00) ∪ [00:00, nightEnd) Korea time.
    public var nightStartMinuteOfDay: Int64
    public var nightEndMinuteOfDay: Int64
    /// §56②: the first 8 hours of 휴일근로 per calendar date get the lower premium.
    public var holidayFirstTierMinutes: Int64
    /// Premiums on top of the base hour, in halves of the ordinary hourly wage (1 = +50 %).
    public var overtimePremiumHalves: Int64        // §56① and 기간제법 §6③: +50 %
    public var nightPremiumHalves: Int64           // §56③: +50 %
    public var holidayPremiumHalves: Int64         // §56②1: +50 % for the first 8 h
    public var holidayOver8PremiumHalves: Int64    // §56②2: +100 % beyond 8 h
    /// §18③: below this 4-week-average weekly 소정 there is no §55 (no 주휴, no paid 공휴일).
    public var weeklyAllowanceThresholdMinutes: Int64
    /// MOEL 1350 / 시행령 [별표 2]: 주휴 minutes = min(weekly 소정, cap) / divisor.
    public var weeklyAllowanceCapMinutes: Int64
    public var weeklyAllowanceDivisor: Int64
    /// §54①: 30 minutes for 4 hours of work, 60 minutes for 8 hours.
    public var breakTier1WorkMinutes: Int64
    public var breakTier1Minutes: Int64
    public var breakTier2WorkMinutes: Int64
    public var breakTier2Minutes: Int64

    /// The §54① required break for a shift with `netWorkMinutes` of work.
    public func requiredBreakMinutes(netWorkMinutes: Int64) -> Int64 {
        if netWorkMinutes >= breakTier2WorkMinutes { return breakTier2Minutes }
        if netWorkMinutes >= breakTier1WorkMinutes { return breakTier1Minutes }
        return 0
    }

    public static let table = ParameterTable<WorkingTimeRules>("working_time_rules", [
        EffectiveDated(
            WorkingTimeRules(
                dailyLimitMinutes: 480, weeklyLimitMinutes: 2400,
                nightStartMinuteOfDay: 22 * 60, nightEndMinuteOfDay: 6 * 60,
                holidayFirstTierMinutes: 480,
                overtimePremiumHalves: 1, nightPremiumHalves: 1, holidayPremiumHalves: 1, holidayOver8PremiumHalves: 2,
                weeklyAllowanceThresholdMinutes: 900, weeklyAllowanceCapMinutes: 2400, weeklyAllowanceDivisor: 5,
                breakTier1WorkMinutes: 240, breakTier1Minutes: 30, breakTier2WorkMinutes: 480, breakTier2Minutes: 60),
            // §56② holiday tiers are the 2018-03-20 amendment (법률 제15513호), in force 2018-03-20.
            from: day(2018, 3, 20), toExclusive: nil,
            source: "rules spec §1.2–§1.4: 근로기준법 §18③ §50 §54① §55 §56 (법률 제15513호); 기간제법 §6③; MOEL 1350",
            confidence: .high),
    ])

    /// The version in force for the whole period; a period straddling two versions is unsupported
    /// (split the period instead).
    static func resolve(periodStart: LocalDate, periodEnd: LocalDate) throws(PayrollError) -> WorkingTimeRules {
        // `ParameterTable.version(on:)` without copying versions (this runs for every employee).
        let versions = table.versions
        func index(on date: LocalDate) -> Int? {
            var i = versions.count - 1
            while i >= 0 {
                if versions[i].covers(date) { return i }
                i -= 1
            }
            return nil
        }
        guard let first = index(on: periodStart), let last = index(on: periodEnd),
              versions[first].from == versions[last].from else {
            throw PayrollError(.unsupported, "no single version of the working-time rules covers \(periodStart)…\(periodEnd)",
                               field: "periodStart")
        }
        return versions[first].value
    }
}

/// §54① 단서 (법률 제21784호, promulgated 2026-06-09, in force 2026-12-10 [M][S25]): on a day of
/// exactly 4 hours of work the worker may expressly ask to skip the 30-minute break.
///
/// The calc input carries no "employee request" field, so `EarningsCalculator` passes
/// `employeeRequestRecorded: false` and the proviso currently never waives a break. When the
/// request becomes an input, pass it here; the date gate is already in place.
public enum BreakWaiver {
    public static let fourHourDayWaiverInForce = ParameterTable<Bool>("break_waiver_four_hour_day", [
        EffectiveDated(false, from: day(1953, 5, 10), toExclusive: day(2026, 12, 10),
                       source: "근로기준법 §54① before 법률 제21784호", confidence: .high),
        EffectiveDated(true, from: day(2026, 12, 10), toExclusive: nil,
                       source: "rules spec §1.2: §54① 단서, 법률 제21784호 (2026-06-09), 시행 2026-12-10 [S25]",
                       confidence: .medium),
    ])

    /// Whether the §54 break requirement is waived for this shift.
    public static func waives(workDate: LocalDate, netWorkMinutes: Int64, requiredBreakMinutes: Int64,
                              employeeRequestRecorded: Bool) -> Bool {
        guard employeeRequestRecorded, netWorkMinutes == 240, requiredBreakMinutes == 30 else { return false }
        return fourHourDayWaiverInForce.value(on: workDate) ?? false
    }
}
