import PayrollRules

/// The stored payslip's `earnings` and `deductions` JSON (one row per employee of every month-end)
/// written straight into one exactly sized buffer: the same bytes as
/// `CalcResponseEncoder.write(_:to:)` through `JSONWriter` (which `payrun calc` uses and
/// `PayslipLineJSONTests` compares against), at a fraction of the cost — `JSONWriter` pays a
/// capacity check, a comma decision and an array append per token, ~30,000 instructions for
/// an employee's lines (load-cpu, benchmarks/RESULTS.md).
///
/// Two passes over each line: the exact length (texts are scanned eight bytes at a time for
/// bytes that need escaping; 계산방법 texts have none), then the bytes.
enum PayslipLineJSON {
    /// `[{code, minutes?, rate?, multiplier?, amount, method}]`.
    static func earnings(_ lines: [EarningLine]) -> [UInt8] {
        var length = 2 + max(lines.count - 1, 0)  // [ ] and the commas between lines
        // Lines are read in place (`lines[k]`), not copied out (`for line in lines`), which
        // retained and released each line's texts once per pass.
        for k in lines.indices {
            length += fixedLineBytes + lines[k].code.rawValue.utf8.count + digits(lines[k].amount) + escapedLength(lines[k].method)
            if let minutes = lines[k].minutes { length += 11 + digits(minutes) }
            if let rate = lines[k].rate { length += 8 + rationalLength(rate) }
            if lines[k].multiplier != nil { length += 15 + escapedLength(lines[k].multiplier ?? "") + 1 }
        }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            guard let base = buffer.baseAddress else { count = 0; return }
            var p = base
            put("[", &p)
            for k in lines.indices {
                if k > 0 { put(",", &p) }
                put("{\"code\":\"", &p)
                putText(lines[k].code.rawValue, &p)
                if let minutes = lines[k].minutes { put(",\"minutes\":", &p); putInteger(minutes, &p) }
                if let rate = lines[k].rate { put(",\"rate\":", &p); putRational(rate, &p) }
                if lines[k].multiplier != nil { put(",\"multiplier\":\"", &p); putText(lines[k].multiplier ?? "", &p) }
                put(",\"amount\":", &p)
                putInteger(lines[k].amount, &p)
                put(",\"method\":\"", &p)
                putText(lines[k].method, &p)
                put("}", &p)
            }
            put("]", &p)
            count = p - base
            precondition(count == length, "PayslipLineJSON: wrote \(count) bytes, sized \(length)")
        }
    }

    /// `[{code, base?, amount, method}]`.
    static func deductions(_ lines: [DeductionLine]) -> [UInt8] {
        var length = 2 + max(lines.count - 1, 0)
        for k in lines.indices {
            length += fixedLineBytes + lines[k].code.rawValue.utf8.count + digits(lines[k].amount) + escapedLength(lines[k].method)
            if let base = lines[k].base { length += 8 + digits(base) }
        }
        return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            guard let base = buffer.baseAddress else { count = 0; return }
            var p = base
            put("[", &p)
            for k in lines.indices {
                if k > 0 { put(",", &p) }
                put("{\"code\":\"", &p)
                putText(lines[k].code.rawValue, &p)
                if let lineBase = lines[k].base { put(",\"base\":", &p); putInteger(lineBase, &p) }
                put(",\"amount\":", &p)
                putInteger(lines[k].amount, &p)
                put(",\"method\":\"", &p)
                putText(lines[k].method, &p)
                put("}", &p)
            }
            put("]", &p)
            count = p - base
            precondition(count == length, "PayslipLineJSON: wrote \(count) bytes, sized \(length)")
        }
    }

    // MARK: Lengths

    /// `{"code":"` (9) `"` (1) `,"amount":` (10) `,"method":"` (11) `"` (1) `}` (1): every line's fixed bytes.
    static let fixedLineBytes = 9 + 1 + 10 + 11 + 1 + 1

    /// Decimal digits of `v`, with the sign.
    static func digits(_ v: Int64) -> Int {
        var m = v.magnitude, n = 1
        while m >= 10 { m /= 10; n += 1 }
        return n + (v < 0 ? 1 : 0)
    }

    /// A whole rational is a JSON number; any other the string `"p/q"` (calc-api rule 10).
    static func rationalLength(_ r: Rational) -> Int {
        r.isInteger ? digits(r.numerator) : 1 + digits(r.numerator) + 1 + digits(r.denominator) + 1
    }

    /// The text's length once escaped as `JSONWriter` escapes it (without the quotes).
    static func escapedLength(_ s: String) -> Int {
        withUTF8(of: s) { utf8 in
            var length = utf8.count
            var i = JSONWriter.firstEscapeCandidate(utf8, from: 0)
            while i < utf8.count {
                let c = utf8[i]
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x08 || c == 0x0C {
                    length += 1
                } else if c < 0x20 {
                    length += 5
                }
                i += 1
            }
            return length
        }
    }

    /// Runs `body` on the UTF-8 of `s`: in place for a native or small string (no copy of `s`,
    /// so no retain and release of its storage per text: `var s = s; s.withUTF8` paid a pair for
    /// each of the ~20 texts of an employee's lines, measured with callgrind), else on a copy.
    @inline(__always)
    static func withUTF8<R>(of s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = s.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = s
        return copy.withUTF8(body)
    }

    // MARK: Writing

    @inline(__always)
    private static func put(_ s: StaticString, _ p: inout UnsafeMutablePointer<UInt8>) {
        p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        p += s.utf8CodeUnitCount
    }

    private static func putInteger(_ v: Int64, _ p: inout UnsafeMutablePointer<UInt8>) {
        let n = digits(v)
        var m = v.magnitude
        if v < 0 { p[0] = UInt8(ascii: "-") }
        var i = n
        repeat {
            i -= 1
            p[i] = UInt8(truncatingIfNeeded: m % 10) &+ UInt8(ascii: "0")
            m /= 10
        } while m > 0
        p += n
    }

    private static func putRational(_ r: Rational, _ p: inout UnsafeMutablePointer<UInt8>) {
        if r.isInteger { putInteger(r.numerator, &p); return }
        put("\"", &p)
        putInteger(r.numerator, &p)
        put("/", &p)
        putInteger(r.denominator, &p)
        put("\"", &p)
    }

    /// The escaped text and its closing quote.
    private static func putText(_ s: String, _ p: inout UnsafeMutablePointer<UInt8>) {
        withUTF8(of: s) { utf8 in
            guard let source = utf8.baseAddress else { return }
            var runStart = 0
            var i = JSONWriter.firstEscapeCandidate(utf8, from: 0)
            while i < utf8.count {
                let c = utf8[i]
                if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") { i += 1; continue }
                p.update(from: source + runStart, count: i - runStart)
                p += i - runStart
                p[0] = UInt8(ascii: "\\")
                switch c {
                case UInt8(ascii: "\""): p[1] = UInt8(ascii: "\""); p += 2
                case UInt8(ascii: "\\"): p[1] = UInt8(ascii: "\\"); p += 2
                case 0x0A: p[1] = UInt8(ascii: "n"); p += 2
                case 0x0D: p[1] = UInt8(ascii: "r"); p += 2
                case 0x09: p[1] = UInt8(ascii: "t"); p += 2
                case 0x08: p[1] = UInt8(ascii: "b"); p += 2
                case 0x0C: p[1] = UInt8(ascii: "f"); p += 2
                default:
                    let hex: StaticString = "0123456789abcdef"
                    p[1] = UInt8(ascii: "u"); p[2] = UInt8(ascii: "0"); p[3] = UInt8(ascii: "0")
                    p[4] = hex.utf8Start[Int(c >> 4)]; p[5] = hex.utf8Start[Int(c & 0xF)]
                    p += 6
                }
                i += 1
                runStart = i
            }
            p.update(from: source + runStart, count: utf8.count - runStart)
            p += utf8.count - runStart
        }
        p[0] = UInt8(ascii: "\"")
        p += 1
    }
}
