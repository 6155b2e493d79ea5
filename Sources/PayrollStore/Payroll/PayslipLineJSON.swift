import PayrollRules
import PostgresClient

/// The stored payslip's `earnings` and `deductions` JSON (one row per employee of every month-end)
/// written straight into one exactly sized buffer: the same bytes as
/// `CalcResponseEncoder.write(_:to:)` through `JSONWriter` (which `payrun calc` uses and
/// `PayslipLineJSONTests` compares against), at a fraction of the cost — `JSONWriter` pays a
/// capacity check, a comma decision and an array append per token, ~30,000 instructions for
/// an employee's lines (load-cpu, benchmarks/RESULTS.md).
///
/// Two passes over the lines: the exact length, then the bytes. Each text is scanned once, in the
/// first pass, eight bytes at a time for bytes that need escaping (계산방법 texts have none); the
/// second pass copies a text found clean as one block and escapes byte by byte only a text that
/// needs it. Codes are written from static names, integers two digits at a time.
enum PayslipLineJSON {
    /// `[{code, minutes?, rate?, multiplier?, amount, method}]`.
    static func earnings(_ lines: [EarningLine]) -> [UInt8] {
        lines.withUnsafeBufferPointer { lines in
            var clean = CleanTexts()
            let length = earningsLength(lines, &clean)
            return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                count = writeEarnings(lines, clean, into: UnsafeMutableRawBufferPointer(buffer))
            }
        }
    }

    /// `earnings(lines)` as one `json` field of a binary COPY row, written in place in the row.
    static func earnings(_ lines: [EarningLine], into row: inout BinaryCopyRowEncoder) {
        lines.withUnsafeBufferPointer { lines in
            var clean = CleanTexts()
            row.field(byteCount: earningsLength(lines, &clean)) { writeEarnings(lines, clean, into: $0) }
        }
    }

    /// `[{code, base?, amount, method}]`.
    static func deductions(_ lines: [DeductionLine]) -> [UInt8] {
        lines.withUnsafeBufferPointer { lines in
            var clean = CleanTexts()
            let length = deductionsLength(lines, &clean)
            return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                count = writeDeductions(lines, clean, into: UnsafeMutableRawBufferPointer(buffer))
            }
        }
    }

    /// `deductions(lines)` as one `json` field of a binary COPY row, written in place in the row.
    static func deductions(_ lines: [DeductionLine], into row: inout BinaryCopyRowEncoder) {
        lines.withUnsafeBufferPointer { lines in
            var clean = CleanTexts()
            row.field(byteCount: deductionsLength(lines, &clean)) { writeDeductions(lines, clean, into: $0) }
        }
    }

    // MARK: Two passes

    /// The first pass of `earnings`: the exact length, noting which texts need no escaping.
    @inline(__always)
    private static func earningsLength(_ lines: UnsafeBufferPointer<EarningLine>, _ clean: inout CleanTexts) -> Int {
        var length = 2 + max(lines.count - 1, 0)  // [ ] and the commas between lines
        // Lines are read in place (`lines[k]` of the array's buffer: an addressor), not copied out
        // (`for line in lines`, or a method called on an element of the array), which retained
        // and released each line's texts once per pass.
        for k in lines.indices {
            length += fixedLineBytes + name(lines[k].code).utf8CodeUnitCount + digits(lines[k].amount)
            length += lines[k].withMethodUTF8 { clean.scan($0) }
            if let minutes = lines[k].minutes { length += 11 + digits(minutes) }
            if let rate = lines[k].rate { length += 8 + rationalLength(rate) }
            if let multiplier = lines[k].multiplier { length += 15 + clean.scan(multiplier) + 1 }
        }
        return length
    }

    /// The second pass of `earnings`: writes exactly the length the first pass found into
    /// `buffer` (that length); returns the bytes written.
    @inline(__always) @discardableResult
    private static func writeEarnings(_ lines: UnsafeBufferPointer<EarningLine>, _ clean: CleanTexts, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let start = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        var p = start
        var text = 0  // the texts in the order they were scanned: method, then multiplier
        put("[", &p)
        for k in lines.indices {
            if k > 0 { put(",", &p) }
            put("{\"code\":\"", &p)
            put(name(lines[k].code), &p)
            let methodText = text
            text += 1
            if let minutes = lines[k].minutes { put("\",\"minutes\":", &p); putInteger(minutes, &p) } else { put("\"", &p) }
            if let rate = lines[k].rate { put(",\"rate\":", &p); putRational(rate, &p) }
            if let multiplier = lines[k].multiplier {
                put(",\"multiplier\":\"", &p)
                putText(multiplier, isClean: clean.isClean(text), &p)
                text += 1
            }
            put(",\"amount\":", &p)
            putInteger(lines[k].amount, &p)
            put(",\"method\":\"", &p)
            lines[k].withMethodUTF8 { putText($0, isClean: clean.isClean(methodText), &p) }
            put("}", &p)
        }
        put("]", &p)
        let count = p - start
        precondition(count == buffer.count, "PayslipLineJSON: wrote \(count) bytes, sized \(buffer.count)")
        return count
    }

    /// The first pass of `deductions` (see `earningsLength`).
    @inline(__always)
    private static func deductionsLength(_ lines: UnsafeBufferPointer<DeductionLine>, _ clean: inout CleanTexts) -> Int {
        var length = 2 + max(lines.count - 1, 0)
        for k in lines.indices {
            length += fixedLineBytes + name(lines[k].code).utf8CodeUnitCount + digits(lines[k].amount)
            length += lines[k].withMethodUTF8 { clean.scan($0) }
            if let base = lines[k].base { length += 8 + digits(base) }
        }
        return length
    }

    /// The second pass of `deductions` (see `writeEarnings`).
    @inline(__always) @discardableResult
    private static func writeDeductions(_ lines: UnsafeBufferPointer<DeductionLine>, _ clean: CleanTexts, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let start = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        var p = start
        put("[", &p)
        for k in lines.indices {
            if k > 0 { put(",", &p) }
            put("{\"code\":\"", &p)
            put(name(lines[k].code), &p)
            if let lineBase = lines[k].base { put("\",\"base\":", &p); putInteger(lineBase, &p) } else { put("\"", &p) }
            put(",\"amount\":", &p)
            putInteger(lines[k].amount, &p)
            put(",\"method\":\"", &p)
            lines[k].withMethodUTF8 { putText($0, isClean: clean.isClean(k), &p) }
            put("}", &p)
        }
        put("]", &p)
        let count = p - start
        precondition(count == buffer.count, "PayslipLineJSON: wrote \(count) bytes, sized \(buffer.count)")
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

    /// `{"code":"` (9) `"` (1) `,"amount":` (10) `,"method":"` (11) `"` (1) `}` (1): every line's fixed bytes.
    static let fixedLineBytes = 9 + 1 + 10 + 11 + 1 + 1

    /// Decimal digits of `v`, with the sign.
    @inline(__always)
    static func digits(_ v: Int64) -> Int {
        digitCount(v.magnitude) + (v < 0 ? 1 : 0)
    }

    /// Decimal digits of `m` (four at a time, then the last one to three).
    @inline(__always)
    static func digitCount(_ m: UInt64) -> Int {
        var m = m, n = 1
        while m >= 10_000 { m /= 10_000; n += 4 }
        return m >= 1_000 ? n + 3 : m >= 100 ? n + 2 : m >= 10 ? n + 1 : n
    }

    /// A whole rational is a JSON number; any other the string `"p/q"` (calc-api rule 10).
    static func rationalLength(_ r: Rational) -> Int {
        r.isInteger ? digits(r.numerator) : 1 + digits(r.numerator) + 1 + digits(r.denominator) + 1
    }

    /// The length of `utf8` once escaped as `JSONWriter` escapes it (without the quotes), and
    /// whether it has no byte to escape (then the length is its count).
    @inline(__always)
    static func escapedLength(_ utf8: UnsafeBufferPointer<UInt8>) -> (length: Int, isClean: Bool) {
        let n = utf8.count
        var i = JSONWriter.firstEscapeCandidate(utf8, from: 0)
        if i == n { return (n, true) }
        // Fewer than eight bytes were left after clean words: the last eight bytes as one word
        // (overlapping bytes already found clean).
        if i + 8 > n, n >= 8, JSONWriter.firstEscapeCandidate(utf8, from: n - 8) == n { return (n, true) }
        var length = n
        var isClean = true
        while i < n {
            let c = utf8[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x08 || c == 0x0C {
                length += 1
                isClean = false
            } else if c < 0x20 {
                length += 5
                isClean = false
            }
            i += 1
        }
        return (length, isClean)
    }

    /// Which texts of one line array the length pass found with nothing to escape, by their order
    /// of scanning (the first 64; any later text is escaped byte by byte, which is always right).
    struct CleanTexts {
        private var bits: UInt64 = 0
        private var scanned = 0

        /// The escaped length of the next text, remembering whether it is clean.
        @inline(__always)
        mutating func scan(_ s: String) -> Int {
            withUTF8(of: s) { scan($0) }
        }

        /// `scan` of a text's UTF-8 bytes.
        @inline(__always)
        mutating func scan(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
            let (length, isClean) = escapedLength(utf8)
            if isClean && scanned < 64 { bits |= 1 << UInt64(scanned) }
            scanned += 1
            return length
        }

        @inline(__always)
        func isClean(_ index: Int) -> Bool {
            index < 64 && bits & (1 << UInt64(index)) != 0
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

    /// "00", "01", … "99" back to back.
    private static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// The decimal digits of `v`, two per division, written backwards into their final place.
    private static func putInteger(_ v: Int64, _ p: inout UnsafeMutablePointer<UInt8>) {
        let n = digits(v)
        var m = v.magnitude
        if v < 0 { p[0] = UInt8(ascii: "-") }
        let pairs = digitPairs.utf8Start
        var i = n
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
        assert(i == (v < 0 ? 1 : 0), "digit count")
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

    /// The escaped text and its closing quote; a text the length pass found clean is copied whole.
    private static func putText(_ s: String, isClean: Bool, _ p: inout UnsafeMutablePointer<UInt8>) {
        withUTF8(of: s) { putText($0, isClean: isClean, &p) }
    }

    /// `putText` of a text's UTF-8 bytes.
    private static func putText(_ utf8: UnsafeBufferPointer<UInt8>, isClean: Bool, _ p: inout UnsafeMutablePointer<UInt8>) {
        putBody(utf8, isClean: isClean, &p)
        p[0] = UInt8(ascii: "\"")
        p += 1
    }

    /// The escaped text (a text the length pass found clean is copied whole).
    @inline(__always)
    private static func putBody(_ utf8: UnsafeBufferPointer<UInt8>, isClean: Bool, _ p: inout UnsafeMutablePointer<UInt8>) {
        guard let source = utf8.baseAddress else { return }
        if isClean {
            p.update(from: source, count: utf8.count)
            p += utf8.count
            return
        }
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
}
