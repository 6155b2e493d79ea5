import PayrollRules
import PostgresClient

/// The stored payslip's `earnings` and `deductions` JSON (one row per employee of every month-end)
/// written straight into its buffer: the same bytes as `CalcResponseEncoder.write(_:to:)` through
/// `JSONWriter` (which `payrun calc` uses and `PayslipLineJSONTests` compares against), at a
/// fraction of the cost — `JSONWriter` pays a capacity check, a comma decision and an array append
/// per token, ~30,000 instructions for an employee's lines (load-cpu, benchmarks/RESULTS.md).
///
/// One pass over the lines' values: a bound of the length is taken first from the texts' byte
/// counts alone (no text is read: every escaped byte takes at most six), the buffer or row field
/// is sized to it, and the bytes are written in one pass that escapes while it copies — eight
/// bytes at a time, a clean word stored as it was loaded (계산방법 texts have nothing to escape), a
/// text with a byte to escape written byte by byte from its first candidate word. The row field's
/// length is set afterwards (`BinaryCopyRowEncoder.field(maxByteCount:writingWith:)`). Until
/// session 8 a first pass computed the exact length, scanning every text for escapes, and a
/// second pass copied it (worker-glue, benchmarks/RESULTS.md). Codes are written from static
/// names, integers two digits at a time.
enum PayslipLineJSON {
    /// `[{code, minutes?, rate?, multiplier?, amount, method}]`.
    static func earnings(_ lines: [EarningLine]) -> [UInt8] {
        lines.withUnsafeBufferPointer { lines in
            [UInt8](unsafeUninitializedCapacity: earningsBound(lines)) { buffer, count in
                count = writeEarnings(lines, into: UnsafeMutableRawBufferPointer(buffer))
            }
        }
    }

    /// `earnings(lines)` as one `json` field of a binary COPY row, written in place in the row.
    static func earnings(_ lines: [EarningLine], into row: inout BinaryCopyRowEncoder) {
        lines.withUnsafeBufferPointer { lines in
            row.field(maxByteCount: earningsBound(lines)) { writeEarnings(lines, into: $0) }
        }
    }

    /// `[{code, base?, amount, method}]`.
    static func deductions(_ lines: [DeductionLine]) -> [UInt8] {
        lines.withUnsafeBufferPointer { lines in
            [UInt8](unsafeUninitializedCapacity: deductionsBound(lines)) { buffer, count in
                count = writeDeductions(lines, into: UnsafeMutableRawBufferPointer(buffer))
            }
        }
    }

    /// `deductions(lines)` as one `json` field of a binary COPY row, written in place in the row.
    static func deductions(_ lines: [DeductionLine], into row: inout BinaryCopyRowEncoder) {
        lines.withUnsafeBufferPointer { lines in
            row.field(maxByteCount: deductionsBound(lines)) { writeDeductions(lines, into: $0) }
        }
    }

    // MARK: Bounds

    /// The most an escaped byte takes (`\u00XX`).
    static let escapedByteMax = 6
    /// The most an `Int64` takes in decimal, sign included (`-9223372036854775808`).
    static let integerMax = 20

    /// The most one earnings line takes besides its texts' bytes (each counted `escapedByteMax`
    /// times): a comma, `{"code":"` (9), the longest code (25), `","minutes":` (12) and an
    /// integer, `,"rate":"` (9) and `p/q"`, `,"multiplier":"` (15) and `"`, `,"amount":` (10) and
    /// an integer, `,"method":"` (11), `"}` (2).
    static let earningLineFixedMax = 1 + 9 + 25 + 12 + integerMax + 9 + 2 * integerMax + 2 + 15 + 1 + 10 + integerMax + 11 + 2

    /// The most one deductions line takes besides its method's bytes: a comma, `{"code":"` (9), the
    /// longest code (20), `","base":` (9) and an integer, `,"amount":` (10) and an integer,
    /// `,"method":"` (11), `"}` (2).
    static let deductionLineFixedMax = 1 + 9 + 20 + 9 + integerMax + 10 + integerMax + 11 + 2

    /// At least the byte count `writeEarnings` writes for `lines`, from the texts' byte counts.
    @inline(__always)
    static func earningsBound(_ lines: UnsafeBufferPointer<EarningLine>) -> Int {
        var textBytes = 0
        // Lines are read in place (`lines[k]` of the array's buffer: an addressor), not copied out
        // (`for line in lines`, or a method called on an element of the array), which retained
        // and released each line's texts.
        for k in lines.indices {
            textBytes += lines[k].withMethodUTF8 { $0.count }
            if let multiplier = lines[k].multiplier { textBytes += multiplier.utf8.count }
        }
        return 2 + lines.count * earningLineFixedMax + textBytes * escapedByteMax
    }

    /// At least the byte count `writeDeductions` writes for `lines`.
    @inline(__always)
    static func deductionsBound(_ lines: UnsafeBufferPointer<DeductionLine>) -> Int {
        var textBytes = 0
        for k in lines.indices { textBytes += lines[k].withMethodUTF8 { $0.count } }
        return 2 + lines.count * deductionLineFixedMax + textBytes * escapedByteMax
    }

    // MARK: One pass

    /// Writes the earnings JSON into `buffer` (at least `earningsBound` bytes); returns the bytes written.
    @inline(__always)
    private static func writeEarnings(_ lines: UnsafeBufferPointer<EarningLine>, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let start = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        var p = start
        put("[", &p)
        for k in lines.indices {
            if k > 0 { put(",", &p) }
            put("{\"code\":\"", &p)
            putShort(name(lines[k].code), &p)
            if let minutes = lines[k].minutes { put("\",\"minutes\":", &p); putInteger(minutes, &p) } else { put("\"", &p) }
            if let rate = lines[k].rate { put(",\"rate\":", &p); putRational(rate, &p) }
            if let multiplier = lines[k].multiplier {
                put(",\"multiplier\":\"", &p)
                withUTF8(of: multiplier) { putEscaped($0, &p) }
                put("\"", &p)
            }
            put(",\"amount\":", &p)
            putInteger(lines[k].amount, &p)
            put(",\"method\":\"", &p)
            lines[k].withMethodUTF8 { putEscaped($0, &p) }
            put("\"}", &p)
        }
        put("]", &p)
        let count = p - start
        precondition(count <= buffer.count, "PayslipLineJSON: wrote \(count) bytes, bound \(buffer.count)")
        return count
    }

    /// Writes the deductions JSON into `buffer` (at least `deductionsBound` bytes); returns the bytes written.
    @inline(__always)
    private static func writeDeductions(_ lines: UnsafeBufferPointer<DeductionLine>, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let start = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        var p = start
        put("[", &p)
        for k in lines.indices {
            if k > 0 { put(",", &p) }
            put("{\"code\":\"", &p)
            putShort(name(lines[k].code), &p)
            if let lineBase = lines[k].base { put("\",\"base\":", &p); putInteger(lineBase, &p) } else { put("\"", &p) }
            put(",\"amount\":", &p)
            putInteger(lines[k].amount, &p)
            put(",\"method\":\"", &p)
            lines[k].withMethodUTF8 { putEscaped($0, &p) }
            put("\"}", &p)
        }
        put("]", &p)
        let count = p - start
        precondition(count <= buffer.count, "PayslipLineJSON: wrote \(count) bytes, bound \(buffer.count)")
        return count
    }

    // MARK: Codes

    /// The code's raw value, as a static string (no `String` built, no scan for escapes: codes are
    /// plain lower-case ASCII). `PayslipLineJSONTests` checks every case against `rawValue`.
    static func name(_ code: EarningCode) -> StaticString {
        switch code {
        case .basePay: "base_pay"
        case .overtime: "overtime"
        case .partTimeExcess: "part_time_excess"
        case .night: "night"
        case .holidayWork: "holiday_work"
        case .weeklyAllowance: "weekly_allowance"
        case .paidHoliday: "paid_holiday"
        case .nonTaxableMeals: "non_taxable_meals"
        case .nonTaxableCarAllowance: "non_taxable_car_allowance"
        case .nonTaxableChildcare: "non_taxable_childcare"
        }
    }

    /// The code's raw value, as a static string (see `name(_: EarningCode)`).
    static func name(_ code: DeductionCode) -> StaticString {
        switch code {
        case .nationalPension: "national_pension"
        case .healthInsurance: "health_insurance"
        case .longTermCare: "long_term_care"
        case .employmentInsurance: "employment_insurance"
        case .incomeTax: "income_tax"
        case .localIncomeTax: "local_income_tax"
        }
    }

    // MARK: Lengths

    /// Decimal digits of `m`: by comparisons below 10⁸ (every minute count and nearly every amount
    /// of a payslip), else four at a time, then the last one to three.
    @inline(__always)
    static func digitCount(_ m: UInt64) -> Int {
        if m < 10_000 { return m >= 1_000 ? 4 : m >= 100 ? 3 : m >= 10 ? 2 : 1 }
        if m < 100_000_000 { return m >= 10_000_000 ? 8 : m >= 1_000_000 ? 7 : m >= 100_000 ? 6 : 5 }
        var m = m, n = 1
        while m >= 10_000 { m /= 10_000; n += 4 }
        return m >= 1_000 ? n + 3 : m >= 100 ? n + 2 : m >= 10 ? n + 1 : n
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

    /// `put(s)` for a string of a length not known when compiled (a code's name, at most 32
    /// bytes): two overlapping loads and stores of the widest size that fits, as `memcpy` does for
    /// short lengths, without its call.
    @inline(__always)
    private static func putShort(_ s: StaticString, _ p: inout UnsafeMutablePointer<UInt8>) {
        let n = s.utf8CodeUnitCount
        let source = UnsafeRawPointer(s.utf8Start), target = UnsafeMutableRawPointer(p)
        if n >= 16 && n <= 32 {
            let head = source.loadUnaligned(as: SIMD16<UInt8>.self), tail = source.loadUnaligned(fromByteOffset: n - 16, as: SIMD16<UInt8>.self)
            target.storeBytes(of: head, as: SIMD16<UInt8>.self)
            target.storeBytes(of: tail, toByteOffset: n - 16, as: SIMD16<UInt8>.self)
        } else if n >= 8 && n < 16 {
            let head = source.loadUnaligned(as: UInt64.self), tail = source.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        } else {
            put(s, &p)
            return
        }
        p += n
    }

    /// "00", "01", … "99" back to back.
    private static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// The decimal digits of `v`. Below 10⁸ (every minute count and nearly every amount of a
    /// payslip) written front to back in 32-bit arithmetic, no digit count needed: the number
    /// split at 10⁴, each half's pairs copied as one 16-bit store from `digitPairs`. Larger
    /// values (`putLargeInteger`) are written backwards into their final place.
    @inline(__always)
    private static func putInteger(_ v: Int64, _ position: inout UnsafeMutablePointer<UInt8>) {
        // A local copy of the position (see `putEscaped`), stored back on return.
        var p = position
        defer { position = p }
        if v < 0 {
            p[0] = UInt8(ascii: "-")
            p += 1
        }
        let m = v.magnitude
        guard m < 100_000_000 else {
            putLargeInteger(m, &p)
            return
        }
        let x = UInt32(truncatingIfNeeded: m)
        if x < 10_000 {
            putUpTo4Digits(x, &p)
        } else {
            putUpTo4Digits(x / 10_000, &p)
            let low = x % 10_000
            putPair(low / 100, &p)
            putPair(low % 100, &p)
        }
    }

    /// `x` (below 10⁴) without leading zeros.
    @inline(__always)
    private static func putUpTo4Digits(_ x: UInt32, _ p: inout UnsafeMutablePointer<UInt8>) {
        if x >= 100 {
            let high = x / 100
            if high >= 10 { putPair(high, &p) } else { p[0] = UInt8(truncatingIfNeeded: high) &+ UInt8(ascii: "0"); p += 1 }
            putPair(x % 100, &p)
        } else if x >= 10 {
            putPair(x, &p)
        } else {
            p[0] = UInt8(truncatingIfNeeded: x) &+ UInt8(ascii: "0")
            p += 1
        }
    }

    /// The two digits of `pair` (below 100), leading zero included, as one 16-bit copy.
    @inline(__always)
    private static func putPair(_ pair: UInt32, _ p: inout UnsafeMutablePointer<UInt8>) {
        let digits = UnsafeRawPointer(digitPairs.utf8Start).loadUnaligned(fromByteOffset: Int(pair &* 2), as: UInt16.self)
        UnsafeMutableRawPointer(p).storeBytes(of: digits, as: UInt16.self)
        p += 2
    }

    /// The decimal digits of `m` (10⁸ or more), two per division, written backwards into their final place.
    @inline(never)
    private static func putLargeInteger(_ m: UInt64, _ position: inout UnsafeMutablePointer<UInt8>) {
        var p = position
        defer { position = p }
        let n = digitCount(m)
        var m = m
        let pairs = digitPairs.utf8Start
        var i = n
        // Four digits per division while at least five are left (the two pairs of the remainder
        // from a division of a number below 10⁴), then two at a time.
        while m >= 10_000 {
            let four = Int(truncatingIfNeeded: m % 10_000)
            m /= 10_000
            let high = (four / 100) &* 2, low = (four % 100) &* 2
            i -= 4
            p[i] = pairs[high]
            p[i + 1] = pairs[high + 1]
            p[i + 2] = pairs[low]
            p[i + 3] = pairs[low + 1]
        }
        while m >= 100 {
            let pair = Int(truncatingIfNeeded: m % 100) &* 2
            m /= 100
            i -= 2
            p[i] = pairs[pair]
            p[i + 1] = pairs[pair + 1]
        }
        if m >= 10 {
            let pair = Int(truncatingIfNeeded: m) &* 2
            i -= 2
            p[i] = pairs[pair]
            p[i + 1] = pairs[pair + 1]
        } else {
            i -= 1
            p[i] = UInt8(truncatingIfNeeded: m) &+ UInt8(ascii: "0")
        }
        assert(i == 0, "digit count")
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

    /// `utf8` escaped as `JSONWriter` escapes it (without quotes), copied eight bytes at a time
    /// while no byte needs escaping: each clean word is stored as it was loaded, and the last
    /// fewer than eight bytes as the text's last word (its first bytes rewritten with the same
    /// values) when that word is clean. From a word with a candidate on, byte by byte.
    @inline(__always)
    private static func putEscaped(_ utf8: UnsafeBufferPointer<UInt8>, _ position: inout UnsafeMutablePointer<UInt8>) {
        // The position in a local, stored back on return: through `inout`, every store of text could
        // alias the position itself, so it was reloaded and stored for every word written.
        var p = position
        defer { position = p }
        guard let source = utf8.baseAddress else { return }
        let n = utf8.count
        var i = 0
        if n >= 16 {
            // Sixteen bytes per test in one SSE register while sixteen are left (three byte-wise
            // compares; the two-word test took ~30 instructions per sixteen bytes, this ~20); a
            // block with a candidate is taken word by word below.
            while i &+ 16 <= n {
                let block = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD16<UInt8>.self)
                if hasEscapeCandidate(block) { break }
                UnsafeMutableRawPointer(p).storeBytes(of: block, as: SIMD16<UInt8>.self)
                p += 16
                i &+= 16
            }
            if i == n { return }
            if i &+ 16 > n {
                // All clean so far and fewer than sixteen left: the text's last sixteen bytes as one
                // block (its first bytes rewritten with the same values) when that block is clean.
                let block = UnsafeRawPointer(source + (n - 16)).loadUnaligned(as: SIMD16<UInt8>.self)
                if !hasEscapeCandidate(block) {
                    UnsafeMutableRawPointer(p - (16 - (n - i))).storeBytes(of: block, as: SIMD16<UInt8>.self)
                    p += n - i
                    return
                }
            }
        }
        while i + 8 <= n {
            let w = UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self)
            if mayNeedEscaping(w) { break }
            UnsafeMutableRawPointer(p).storeBytes(of: w, as: UInt64.self)
            p += 8
            i += 8
        }
        if i == n { return }
        if i + 8 > n, n >= 8 {
            // Fewer than eight bytes left after clean words: the text's last eight bytes as one word.
            let w = UnsafeRawPointer(source + (n - 8)).loadUnaligned(as: UInt64.self)
            if !mayNeedEscaping(w) {
                UnsafeMutableRawPointer(p - (8 - (n - i))).storeBytes(of: w, as: UInt64.self)
                p += n - i
                return
            }
        }
        if n < 8 {
            // A short text (a multiplier such as `1.5`): byte by byte here while clean, not in a call.
            while i < n {
                let c = source[i]
                if c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { break }
                p[0] = c
                p += 1
                i += 1
            }
            if i == n { return }
        }
        putEscapedBytes(utf8, from: i, &p)
    }

    /// Whether any byte of `block` is below 0x20, `"` or `\` (the test of `mayNeedEscaping`, on
    /// sixteen bytes; the mask read as two words, since `SIMDMask.any` is not inlined).
    @inline(__always)
    private static func hasEscapeCandidate(_ block: SIMD16<UInt8>) -> Bool {
        // The operands spelled `SIMD16<UInt8>`: with the element type inferred, the protocol's
        // generic operators were chosen, which compare lane by lane (~30 times slower).
        let control = SIMD16<UInt8>(repeating: 0x20), quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\"")),
            backslash = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        let candidates = (block .< control) .| (block .== quote) .| (block .== backslash)
        let words = unsafeBitCast(candidates, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }

    /// Whether any byte of `w` is below 0x20, `"` or `\` (`JSONWriter.firstEscapeCandidate`'s test).
    @inline(__always)
    private static func mayNeedEscaping(_ w: UInt64) -> Bool {
        escapeCandidates(w) != 0
    }

    /// Nonzero exactly when `mayNeedEscaping(w)`.
    @inline(__always)
    private static func escapeCandidates(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (w &- ones &* 0x20) & ~w & highs
        let quote = w ^ (ones &* 0x22), backslash = w ^ (ones &* 0x5C)
        let isQuote = (quote &- ones) & ~quote & highs
        let isBackslash = (backslash &- ones) & ~backslash & highs
        return below20 | isQuote | isBackslash
    }

    /// `utf8[start...]` escaped byte by byte (a text with a byte to escape, or a short one).
    private static func putEscapedBytes(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int, _ position: inout UnsafeMutablePointer<UInt8>) {
        var p = position
        defer { position = p }
        var i = start
        while i < utf8.count {
            let c = utf8[i]
            i += 1
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                p[0] = c
                p += 1
                continue
            }
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
        }
    }
}
