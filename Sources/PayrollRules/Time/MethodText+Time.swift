/// The pieces of the earnings `method` texts (`PayMethodText`), written into a `MethodText`
/// buffer so that a line's text is built without intermediate `String`s. Each writes exactly the
/// bytes the `PayMethodText` function of the same name returns.
extension MethodText {
    /// Whole minutes as `Xh`, `Xh Ym` or `Ym`.
    mutating func hours(_ minutes: Int64) {
        let h = minutes / 60, m = minutes % 60
        if m == 0 {
            int(Int(h))
            add("h")
        } else if h == 0 {
            int(Int(m))
            add("m")
        } else {
            int(Int(h))
            add("h ")
            int(Int(m))
            add("m")
        }
    }

    /// Fifths of a minute (the 주휴 unit), exact: `3h 20.2m`.
    mutating func hours(fifthsOfMinute f: Int64) {
        if f % 5 == 0 { return hours(f / 5) }
        let whole = f / 5, tenths = (f % 5) * 2
        let h = whole / 60, m = whole % 60
        if h != 0 {
            int(Int(h))
            add("h ")
        }
        int(Int(m))
        add(".")
        int(Int(tenths))
        add("m")
    }

    /// `10,320원` or `3,000,000원/209`.
    mutating func rate(_ r: Rational) {
        won(r.numerator)
        add("원")
        if !r.isInteger {
            add("/")
            int(Int(r.denominator))
        }
    }

    /// `<hours> × <rate>`, then ` × <multiplier>` unless the multiplier is 1.
    mutating func line(minutes: Int64, rate r: Rational, multiplierHalves: Int64) {
        hours(minutes)
        add(" × ")
        rate(r)
        if multiplierHalves != 2 {
            add(" × ")
            int(Int(multiplierHalves / 2))
            if multiplierHalves % 2 != 0 { add(".5") }
        }
    }

    /// `v` zero-padded on the left to `width` characters, as `LocalDate.pad` prints it (`05`;
    /// the padding goes before a minus sign there too: `0-5`).
    mutating func pad(_ v: Int, _ width: Int) {
        var length = v < 0 ? 2 : 1
        var rest = v.magnitude / 10
        while rest > 0 { length += 1; rest /= 10 }
        while length < width { add("0"); length += 1 }
        int(v)
    }

    /// `pad(v, 2)`.
    mutating func pad2(_ v: Int) { pad(v, 2) }
}
