/// Money is `Int64` 원 throughout payrun. These are the statutory rounding operations of §0.2 of
/// the rules spec, on integers only.
public enum Money {
    /// 10원 미만 절사: floor(x / 10) × 10 (for x ≥ 0; negative values floor toward −∞).
    @inlinable public static func floor10(_ x: Int64) -> Int64 { floorTo(x, 10) }

    /// 천원 미만 절사.
    @inlinable public static func floor1000(_ x: Int64) -> Int64 { floorTo(x, 1000) }

    /// floor10 of an exact fraction.
    @inlinable public static func floor10(_ x: Rational) -> Int64 { floorTo(x.floor, 10) }

    @inlinable public static func floorTo(_ x: Int64, _ unit: Int64) -> Int64 {
        x >= 0 ? x / unit * unit : -((-x + unit - 1) / unit) * unit
    }

    /// ⌈a / b⌉ for a ≥ 0, b > 0, with an `Int128` intermediate when the caller passes a product.
    @inlinable public static func ceilDiv(_ a: Int128, _ b: Int128) -> Int64 {
        Int64((a + b - 1) / b)
    }

    /// ⌊a / b⌋ for a ≥ 0, b > 0.
    @inlinable public static func floorDiv(_ a: Int128, _ b: Int128) -> Int64 {
        Int64(a / b)
    }

    /// `1,238,400` — thousands separators, as a payslip prints amounts.
    public static func grouped(_ x: Int64) -> String {
        var digits = String(x.magnitude)
        var out = ""
        out.reserveCapacity(digits.count + digits.count / 3 + 1)
        let lead = digits.count % 3
        var i = 0
        for ch in digits {
            if i > 0 && (i - lead) % 3 == 0 { out.append(",") }
            out.append(ch)
            i += 1
        }
        digits = out
        return x < 0 ? "-" + digits : digits
    }
}
