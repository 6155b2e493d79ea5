/// One JSON object of a `payrun calc` or `payrun tax` request, with its dotted path (`contract.insurance`,
/// `shifts[3]`). Creating it rejects unknown keys; its accessors convert members to typed values
/// and throw `PayrollError`s that name the field.
///
/// Conventions: an optional member that is absent or `null` takes its default; a required member
/// that is absent or `null` is `missing_field`; a member of the wrong JSON type or out of range is
/// `invalid_value`.
struct RequestObject {
    let object: JSONObject
    let path: String

    init(_ value: JSONValue, path: String, allowed: [String]) throws(PayrollError) {
        guard case .object(let object) = value else {
            throw PayrollError(.invalidValue, "expected an object, got \(value.kindDescription)",
                               field: path.isEmpty ? nil : path)
        }
        for key in object.keys where !allowed.contains(key) {
            throw PayrollError(.unknownField, "unknown field \"\(key)\" (allowed: \(allowed.joined(separator: ", ")))",
                               field: RequestObject.join(path, key))
        }
        self.object = object
        self.path = path
    }

    /// The request object of one JSON Lines request line (`payrun calc` and `payrun tax` alike):
    /// a line over `CalcLimits.lineBytesMax` is `unsupported`, malformed JSON (a repeated key
    /// included) and anything but an object is `invalid_json`, an unknown key `unknown_field`.
    static func requestLine(_ line: UnsafeBufferPointer<UInt8>, allowed: [String]) throws(PayrollError) -> RequestObject {
        guard line.count <= CalcLimits.lineBytesMax else {
            throw PayrollError(.unsupported, "request line is longer than \(CalcLimits.lineBytesMax) bytes")
        }
        return try request(try JSONParser.parse(line, depthMax: CalcLimits.jsonDepthMax), allowed: allowed)
    }

    /// The request object of an already parsed request.
    static func request(_ json: JSONValue, allowed: [String]) throws(PayrollError) -> RequestObject {
        guard case .object = json else {
            throw PayrollError(.invalidJSON, "a request must be a JSON object, got \(json.kindDescription)")
        }
        return try RequestObject(json, path: "", allowed: allowed)
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func field(_ key: String) -> String { RequestObject.join(path, key) }

    /// The member, or nil when absent or `null`.
    func optional(_ key: String) -> JSONValue? {
        switch object[key] {
        case nil, .null?: nil
        case let v?: v
        }
    }

    func required(_ key: String) throws(PayrollError) -> JSONValue {
        guard let v = optional(key) else { throw PayrollError(.missingField, "required field is missing", field: field(key)) }
        return v
    }

    // MARK: Typed members

    func requiredInt(_ key: String, _ range: ClosedRange<Int64>) throws(PayrollError) -> Int64 {
        try JSONField.int(try required(key), range, field: field(key))
    }

    func optionalInt(_ key: String, _ range: ClosedRange<Int64>) throws(PayrollError) -> Int64? {
        guard let v = optional(key) else { return nil }
        return try JSONField.int(v, range, field: field(key))
    }

    func requiredBool(_ key: String) throws(PayrollError) -> Bool {
        try JSONField.bool(try required(key), field: field(key))
    }

    func optionalBool(_ key: String) throws(PayrollError) -> Bool? {
        guard let v = optional(key) else { return nil }
        return try JSONField.bool(v, field: field(key))
    }

    func requiredString(_ key: String) throws(PayrollError) -> String {
        try JSONField.string(try required(key), field: field(key))
    }

    func requiredDate(_ key: String) throws(PayrollError) -> LocalDate {
        try JSONField.date(try required(key), field: field(key))
    }

    func optionalDate(_ key: String) throws(PayrollError) -> LocalDate? {
        guard let v = optional(key) else { return nil }
        return try JSONField.date(v, field: field(key))
    }

    func requiredTime(_ key: String) throws(PayrollError) -> KoreaMinute {
        try JSONField.time(try required(key), field: field(key))
    }

    func optionalEnum<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) throws(PayrollError) -> E?
    where E.RawValue == String {
        guard let v = optional(key) else { return nil }
        return try JSONField.enumValue(v, type, field: field(key))
    }

    func requiredEnum<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) throws(PayrollError) -> E
    where E.RawValue == String {
        try JSONField.enumValue(try required(key), type, field: field(key))
    }

    func optionalWeekday(_ key: String) throws(PayrollError) -> Weekday? {
        guard let v = optional(key) else { return nil }
        let s = try JSONField.string(v, field: field(key))
        guard let d = Weekday(key: s) else {
            throw PayrollError(.invalidValue, "unknown weekday \"\(s)\" (expected one of mon, tue, wed, thu, fri, sat, sun)",
                               field: field(key))
        }
        return d
    }

    /// An optional array, checked against a maximum length.
    func optionalArray(_ key: String, max: Int) throws(PayrollError) -> [JSONValue]? {
        guard let v = optional(key) else { return nil }
        guard case .array(let a) = v else {
            throw PayrollError(.invalidValue, "expected an array, got \(v.kindDescription)", field: field(key))
        }
        guard a.count <= max else {
            throw PayrollError(.invalidValue, "too many entries: \(a.count) (at most \(max) per request)", field: field(key))
        }
        return a
    }
}

/// Conversions of one JSON value to a typed field value.
enum JSONField {
    static func int(_ v: JSONValue, _ range: ClosedRange<Int64>, field: String) throws(PayrollError) -> Int64 {
        guard case .number(let n) = v else {
            throw PayrollError(.invalidValue, "expected an integer, got \(v.kindDescription)", field: field)
        }
        guard let i = n.int64 else {
            throw PayrollError(.invalidValue, "expected an integer, got \(n.literal)", field: field)
        }
        guard range.contains(i) else {
            throw PayrollError(.invalidValue, "\(i) is out of range \(range.lowerBound)…\(range.upperBound)", field: field)
        }
        return i
    }

    static func bool(_ v: JSONValue, field: String) throws(PayrollError) -> Bool {
        guard case .bool(let b) = v else {
            throw PayrollError(.invalidValue, "expected true or false, got \(v.kindDescription)", field: field)
        }
        return b
    }

    static func string(_ v: JSONValue, field: String) throws(PayrollError) -> String {
        guard case .string(let s) = v else {
            throw PayrollError(.invalidValue, "expected a string, got \(v.kindDescription)", field: field)
        }
        return s
    }

    static func date(_ v: JSONValue, field: String) throws(PayrollError) -> LocalDate {
        let s = try string(v, field: field)
        guard let d = LocalDate(iso: s) else {
            throw PayrollError(.invalidValue, "\"\(s)\" is not a date YYYY-MM-DD", field: field)
        }
        return d
    }

    static func time(_ v: JSONValue, field: String) throws(PayrollError) -> KoreaMinute {
        let s = try string(v, field: field)
        switch ISOTime.koreaMinute(s) {
        case .success(let m): return m
        case .failure(.noOffset):
            throw PayrollError(.invalidValue, "\"\(s)\" has no UTC offset (write e.g. 2026-11-02T17:30:00+09:00)", field: field)
        case .failure(.nonZeroSeconds):
            throw PayrollError(.invalidValue, "\"\(s)\" is not a whole minute (seconds must be 00)", field: field)
        case .failure(.malformed):
            throw PayrollError(.invalidValue, "\"\(s)\" is not an ISO-8601 time with offset (YYYY-MM-DDTHH:MM:00+09:00)",
                               field: field)
        }
    }

    static func enumValue<E: RawRepresentable & CaseIterable>(_ v: JSONValue, _ type: E.Type, field: String) throws(PayrollError) -> E
    where E.RawValue == String {
        let s = try string(v, field: field)
        guard let e = E(rawValue: s) else {
            let allowed = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw PayrollError(.invalidValue, "unknown value \"\(s)\" (expected one of \(allowed))", field: field)
        }
        return e
    }
}
