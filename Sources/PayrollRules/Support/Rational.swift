/// An exact non-negative-denominator fraction of `Int64`s, always in lowest terms.
///
/// Pay uses it for rates that are not whole 원 (a monthly salary ÷ 209 h, 9448/71900, 4.75 %).
/// Products are formed in `Int128` and reduced, so no intermediate overflows for payroll-sized
/// values. There is no binary floating point anywhere in pay.
public struct Rational: Hashable, Sendable, CustomStringConvertible {
    public let numerator: Int64
    public let denominator: Int64

    public init(_ numerator: Int64, _ denominator: Int64 = 1) {
        precondition(denominator != 0, "Rational with zero denominator")
        var n = numerator, d = denominator
        if d < 0 { n = -n; d = -d }
        let g = Rational.gcd(n < 0 ? -n : n, d)
        self.numerator = g > 1 ? n / g : n
        self.denominator = g > 1 ? d / g : d
    }

    init(reducing n: Int128, _ d: Int128) {
        precondition(d != 0, "Rational with zero denominator")
        var n = n, d = d
        if d < 0 { n = -n; d = -d }
        var a = n < 0 ? -n : n, b = d
        while b != 0 { (a, b) = (b, a % b) }
        let g = a == 0 ? 1 : a
        self.numerator = Int64(n / g)
        self.denominator = Int64(d / g)
    }

    public static let zero = Rational(0)
    public static let one = Rational(1)

    public var isInteger: Bool { denominator == 1 }

    /// Largest integer ≤ self.
    public var floor: Int64 {
        numerator >= 0 ? numerator / denominator : -((-numerator + denominator - 1) / denominator)
    }

    /// Smallest integer ≥ self.
    public var ceil: Int64 {
        numerator >= 0 ? (numerator + denominator - 1) / denominator : -((-numerator) / denominator)
    }

    /// Nearest integer, halves away from zero (round-half-up for non-negative values).
    public var roundedHalfUp: Int64 {
        let twice = Rational(reducing: Int128(numerator) * 2 + Int128(denominator), Int128(denominator) * 2)
        return twice.floor
    }

    /// `"10320"` for an integer, `"p/q"` otherwise (the calc API's rate format).
    public var description: String { isInteger ? String(numerator) : "\(numerator)/\(denominator)" }

    public static func + (a: Rational, b: Rational) -> Rational {
        Rational(reducing: Int128(a.numerator) * Int128(b.denominator) + Int128(b.numerator) * Int128(a.denominator),
                 Int128(a.denominator) * Int128(b.denominator))
    }
    public static func - (a: Rational, b: Rational) -> Rational {
        Rational(reducing: Int128(a.numerator) * Int128(b.denominator) - Int128(b.numerator) * Int128(a.denominator),
                 Int128(a.denominator) * Int128(b.denominator))
    }
    public static func * (a: Rational, b: Rational) -> Rational {
        Rational(reducing: Int128(a.numerator) * Int128(b.numerator), Int128(a.denominator) * Int128(b.denominator))
    }
    public static func / (a: Rational, b: Rational) -> Rational {
        Rational(reducing: Int128(a.numerator) * Int128(b.denominator), Int128(a.denominator) * Int128(b.numerator))
    }
    public static func * (a: Rational, b: Int64) -> Rational { a * Rational(b) }
    public static func * (a: Int64, b: Rational) -> Rational { Rational(a) * b }

    public static func < (a: Rational, b: Rational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var a = a, b = b
        while b != 0 { (a, b) = (b, a % b) }
        return a == 0 ? 1 : a
    }
}

extension Rational: Comparable {}
