/// A strict RFC 8259 JSON parser over UTF-8 bytes, for request lines of `payrun calc` and `payrun tax`.
///
/// Strict on purpose: invalid UTF-8, lone surrogates, control characters in strings, duplicate
/// keys, leading zeros, trailing commas and trailing garbage are all `invalid_json`. Nesting is
/// limited to `depthMax` so that hostile input cannot exhaust the stack.
public struct JSONParser {
    public static let depthMaxDefault = 32

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let depthMax: Int

    private init(_ bytes: UnsafeBufferPointer<UInt8>, depthMax: Int) {
        self.bytes = bytes
        self.depthMax = depthMax
    }

    /// Parses one complete JSON text (surrounding whitespace allowed).
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>,
                             depthMax: Int = depthMaxDefault) throws(PayrollError) -> JSONValue {
        var p = JSONParser(bytes, depthMax: depthMax)
        p.skipWhitespace()
        let value = try p.parseValue(depth: 0)
        p.skipWhitespace()
        if p.index < p.bytes.count { throw p.failure("unexpected data after the JSON value") }
        return value
    }

    public static func parse(_ bytes: [UInt8], depthMax: Int = depthMaxDefault) throws(PayrollError) -> JSONValue {
        let result: Result<JSONValue, PayrollError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(PayrollError) { return .success(try parse(buffer, depthMax: depthMax)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(_ text: String, depthMax: Int = depthMaxDefault) throws(PayrollError) -> JSONValue {
        try parse(Array(text.utf8), depthMax: depthMax)
    }

    // MARK: - Grammar

    private mutating func parseValue(depth: Int) throws(PayrollError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character \(describe(bytes[index]))")
        }
    }

    private mutating func parseObject(depth: Int) throws(PayrollError) -> JSONValue {
        if depth > depthMax { throw failure("nesting deeper than \(depthMax) levels") }
        index += 1  // {
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
        var seen = Set<String>()
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let key = try parseString()
            // Small objects: linear duplicate check; large ones switch to a set.
            if object.keys.count < 16 {
                if object.keys.contains(key) { throw failure("duplicate key \"\(key)\"") }
            } else {
                if seen.isEmpty { seen = Set(object.keys) }
                if !seen.insert(key).inserted { throw failure("duplicate key \"\(key)\"") }
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            object.keys.append(key)
            object.values.append(value)
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
            throw failure("expected ',' or '}' in an object")
        }
    }

    private mutating func parseArray(depth: Int) throws(PayrollError) -> JSONValue {
        if depth > depthMax { throw failure("nesting deeper than \(depthMax) levels") }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw failure("expected ',' or ']' in an array")
        }
    }

    private mutating func parseNumber() throws(PayrollError) -> JSONNumber {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
        var isInteger = true
        // Accumulate negatively so that Int64.min parses; nil once it overflows.
        var magnitude: Int64? = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("leading zeros are not allowed in numbers") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                if let m = magnitude {
                    let (t, o1) = m.multipliedReportingOverflow(by: 10)
                    let (u, o2) = t.subtractingReportingOverflow(Int64(bytes[index] - 48))
                    magnitude = (o1 || o2) ? nil : u
                }
                index += 1
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number: digits expected after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number: digits expected in exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        var value: Int64? = nil
        if isInteger, let m = magnitude {
            if negative { value = m } else if m != Int64.min { value = -m }
        }
        return JSONNumber(literal: literal, int64: value)
    }

    private mutating func parseString() throws(PayrollError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                let s = try validated(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw failure("control character \(describe(c)) in a string must be escaped") }
            index += 1
        }
        // Slow path: unescape into a byte buffer.
        var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return try out.withUnsafeBufferPointer { (b) throws(PayrollError) -> String in try validated(b) }
            }
            if c < 0x20 { throw failure("control character \(describe(c)) in a string must be escaped") }
            if c != UInt8(ascii: "\\") { out.append(c); index += 1; continue }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw failure("unpaired surrogate in \\u escape")
                    }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw failure("unpaired surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
                out.append(contentsOf: u.utf8)
            default:
                throw failure("invalid escape \\\(describe(e))")
            }
        }
        throw failure("unterminated string")
    }

    private mutating func parseHex4() throws(PayrollError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 55)
            default: throw failure("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    // MARK: - Helpers

    private func validated(_ b: UnsafeBufferPointer<UInt8>) throws(PayrollError) -> String {
        guard let s = String(validating: b, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
        return s
    }

    private mutating func expectLiteral(_ word: StaticString) throws(PayrollError) {
        let n = word.utf8CodeUnitCount
        guard index + n <= bytes.count else { throw failure("invalid literal") }
        let w = word.utf8Start
        for i in 0..<n where bytes[index + i] != w[i] { throw failure("invalid literal") }
        index += n
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    @inline(__always) private func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    private func describe(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x" + String(c, radix: 16, uppercase: true)
    }

    private func failure(_ message: String) -> PayrollError {
        PayrollError(.invalidJSON, "\(message) (at byte \(index))")
    }
}
