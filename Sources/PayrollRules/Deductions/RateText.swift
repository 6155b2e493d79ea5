/// Exact printing of statutory rates for 계산방법 texts: `4.75%`, `3.595%`, `0.1314`. A rate is
/// printed with every digit it has (never rounded); a non-terminating fraction prints as `p/q`.
enum RateText {
    /// `r` as a percentage: 19/400 → `4.75%`.
    static func percent(_ r: Rational) -> String {
        decimal(r * Rational(100)) + "%"
    }

    /// `r` as an exact decimal (1314/10000 → `0.1314`), or `p/q` when it does not terminate.
    static func decimal(_ r: Rational) -> String {
        var q = r.denominator
        var twos = 0, fives = 0
        while q % 2 == 0 { q /= 2; twos += 1 }
        while q % 5 == 0 { q /= 5; fives += 1 }
        guard q == 1, r.numerator >= 0 else { return r.description }
        let digits = max(twos, fives)
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = r.numerator * (scale / r.denominator)
        let whole = String(scaled / scale)
        guard digits > 0 else { return whole }
        let fraction = String(scaled % scale)
        return whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
