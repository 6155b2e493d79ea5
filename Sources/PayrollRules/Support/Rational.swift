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
        // ⌊(2n + d) / 2d⌋ does not depend on reducing the fraction: in `Int64` when it fits.
        let (twiceN, o1) = numerator.multipliedReportingOverflow(by: 2)
        let (top, o2) = twiceN.addingReportingOverflow(denominator)
        let (bottom, o3) = denominator.multipliedReportingOverflow(by: 2)
        if !(o1 || o2 || o3) {
            let q = top / bottom  // bottom > 0
            return top % bottom != 0 && top < 0 ? q - 1 : q
        }
        let twice = Rational(reducing: Int128(numerator) * 2 + Int128(denominator), Int128(denominator) * 2)
        return twice.floor
    }

    /// `"10320"` for an integer, `"p/q"` otherwise (the calc API's rate format).
    public var description: String { isInteger ? String(numerator) : "\(numerator)/\(denominator)" }

    // Every operator first tries `Int64` arithmetic (overflow-checked) and falls back to the
    // `Int128` form only on overflow: lowest terms are unique, so both give the same fraction.

    public static func + (a: Rational, b: Rational) -> Rational {
        if a.denominator == b.denominator {
            let (n, o) = a.numerator.addingReportingOverflow(b.numerator)
            if !o, let r = Rational(reducing64: n, a.denominator) { return r }
        } else if let x = product(a.numerator, b.denominator), let y = product(b.numerator, a.denominator),
                  let d = product(a.denominator, b.denominator) {
            let (n, o) = x.addingReportingOverflow(y)
            if !o, let r = Rational(reducing64: n, d) { return r }
        }
        return Rational(reducing: Int128(a.numerator) * Int128(b.denominator) + Int128(b.numerator) * Int128(a.denominator),
                        Int128(a.denominator) * Int128(b.denominator))
    }
    public static func - (a: Rational, b: Rational) -> Rational {
        if a.denominator == b.denominator {
            let (n, o) = a.numerator.subtractingReportingOverflow(b.numerator)
            if !o, let r = Rational(reducing64: n, a.denominator) { return r }
        } else if let x = product(a.numerator, b.denominator), let y = product(b.numerator, a.denominator),
                  let d = product(a.denominator, b.denominator) {
            let (n, o) = x.subtractingReportingOverflow(y)
            if !o, let r = Rational(reducing64: n, d) { return r }
        }
        return Rational(reducing: Int128(a.numerator) * Int128(b.denominator) - Int128(b.numerator) * Int128(a.denominator),
                        Int128(a.denominator) * Int128(b.denominator))
    }
    public static func * (a: Rational, b: Rational) -> Rational {
        if let n = product(a.numerator, b.numerator), let d = product(a.denominator, b.denominator),
           let r = Rational(reducing64: n, d) { return r }
        return Rational(reducing: Int128(a.numerator) * Int128(b.numerator), Int128(a.denominator) * Int128(b.denominator))
    }
    public static func / (a: Rational, b: Rational) -> Rational {
        if let n = product(a.numerator, b.denominator), let d = product(a.denominator, b.numerator),
           let r = Rational(reducing64: n, d) { return r }
        return Rational(reducing: Int128(a.numerator) * Int128(b.denominator), Int128(a.denominator) * Int128(b.numerator))
    }
    public static func * (a: Rational, b: Int64) -> Rational { a * Rational(b) }
    public static func * (a: Int64, b: Rational) -> Rational { Rational(a) * b }

    public static func < (a: Rational, b: Rational) -> Bool {
        if a.denominator == b.denominator { return a.numerator < b.numerator }
        if let x = product(a.numerator, b.denominator), let y = product(b.numerator, a.denominator) { return x < y }
        return Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    /// a × b, or nil on `Int64` overflow.
    @inline(__always) static func product(_ a: Int64, _ b: Int64) -> Int64? {
        let (p, o) = a.multipliedReportingOverflow(by: b)
        return o ? nil : p
    }

    /// n / d in lowest terms with `Int64` arithmetic, or nil when that cannot be done exactly
    /// (d = 0 or a value of `Int64.min`, whose negation overflows): the caller then takes the
    /// `Int128` path, which handles (or traps on) those cases as before.
    @inline(__always) init?(reducing64 n: Int64, _ d: Int64) {
        guard d != 0, n != .min, d != .min else { return nil }
        var n = n, d = d
        if d < 0 { n = -n; d = -d }
        let g = Rational.gcd(n.magnitude, d.magnitude)
        self.init(unreduced: g > 1 ? n / Int64(g) : n, g > 1 ? d / Int64(g) : d)
    }

    /// A fraction already in lowest terms with a positive denominator (not checked).
    @inline(__always) init(unreduced numerator: Int64, _ denominator: Int64) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// GCD of magnitudes (one Euclid step brings the larger down, then binary GCD); 1 when both
    /// are 0 (as `gcd(_:_:)` below).
    @inline(__always) static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        if a == 0 { return b == 0 ? 1 : b }
        if b == 0 { return a }
        var a = a, b = b
        if a > b { a %= b; if a == 0 { return b } } else { b %= a; if b == 0 { return a } }
        let shift = (a | b).trailingZeroBitCount
        a >>= a.trailingZeroBitCount
        repeat {
            b >>= b.trailingZeroBitCount
            if a > b { swap(&a, &b) }
            b -= a
        } while b != 0
        return a << shift
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var a = a, b = b
        while b != 0 { (a, b) = (b, a % b) }
        return a == 0 ? 1 : a
    }
}

extension Rational: Comparable {}
