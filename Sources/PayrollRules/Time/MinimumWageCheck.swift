/// 최저임금 check (최저임금법 §6; rules spec §1.5): the ordinary hourly wage of every work date
/// (the calendar date of the worked minute) against the minimum wage in force on that date.
/// Premiums, 주휴 and paid holidays do not count toward the comparison.
enum MinimumWageCheck {
    /// Whether any date of the period can fall short. Throws `unsupported` when the table does not
    /// cover the period.
    static func mayFallShort(rate: Rational, periodStart: LocalDate, periodEnd: LocalDate) throws(PayrollError) -> Bool {
        // `covers` on the elements in place: `version(on:)` would copy a version (its `source`
        // text included) twice per employee.
        let versions = MinimumWage.hourlyWon.versions
        guard versions.contains(where: { $0.covers(periodStart) }), versions.contains(where: { $0.covers(periodEnd) }) else {
            throw PayrollError(.unsupported, "no minimum wage is known for \(periodStart)…\(periodEnd)", field: "periodEnd")
        }
        for v in versions
        where v.from <= periodEnd && (v.toExclusive.map { $0 > periodStart } ?? true) {
            if rate < Rational(v.value) { return true }
        }
        return false
    }

    /// One warning per work date below the minimum, naming the date and the shortfall.
    static func warnings(rate: Rational, workDays: [(day: Int64, minutes: Int64)]) throws(PayrollError) -> [PayrollWarning] {
        var out: [PayrollWarning] = []
        for (day, minutes) in workDays {
            let date = DayMath.date(day)
            guard let version = MinimumWage.hourlyWon.version(on: date) else {
                throw PayrollError(.unsupported, "no minimum wage is known for \(date)", field: "shifts")
            }
            let minimum = Rational(version.value)
            guard rate < minimum else { continue }
            let perHour = minimum - rate
            let total = ExactMath.ceilDiv(Int128(minutes) * Int128(perHour.numerator), 60 * Int128(perHour.denominator)) ?? 0
            out.append(PayrollWarning(
                code: .belowMinimumWage,
                message: "\(date): 통상시급 \(PayMethodText.rate(rate)) is below the minimum wage \(Money.grouped(version.value))원 "
                    + "(\(version.source)); shortfall \(PayMethodText.rate(perHour))/h × \(PayMethodText.hours(minutes)) = \(Money.grouped(total))원",
                date: date))
        }
        return out
    }

    /// A salaried or daily-paid employee with no recorded work: one check on the period's last day.
    static func warningWithoutWork(rate: Rational, date: LocalDate) throws(PayrollError) -> PayrollWarning? {
        guard let version = MinimumWage.hourlyWon.version(on: date) else {
            throw PayrollError(.unsupported, "no minimum wage is known for \(date)", field: "periodEnd")
        }
        guard rate < Rational(version.value) else { return nil }
        return PayrollWarning(
            code: .belowMinimumWage,
            message: "\(date): 통상시급 \(PayMethodText.rate(rate)) is below the minimum wage \(Money.grouped(version.value))원 "
                + "(\(version.source)); shortfall \(PayMethodText.rate(Rational(version.value) - rate))/h",
            date: date)
    }
}
