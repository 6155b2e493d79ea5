/// A parsed JSON value, as the calc API reads it.
///
/// Numbers keep their literal text and, when the literal is an integer that fits, its exact
/// `Int64` value: pay never goes through binary floating point, `1.0` and `1e3` are told apart
/// from `1`, and `true` is never confused with `1` (as it is with `JSONSerialization`'s
/// `NSNumber`).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// How the value is named in error messages ("a string", "a boolean", …).
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let n): n.int64 != nil ? "an integer" : "a non-integer number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON number literal. `int64` is set exactly when the literal is an integer literal (no
/// fraction, no exponent) within `Int64`.
public struct JSONNumber: Sendable, Equatable {
    public var literal: String
    public var int64: Int64?

    public init(literal: String, int64: Int64?) {
        self.literal = literal
        self.int64 = int64
    }
}

/// A JSON object with its members in input order. Keys are unique (the parser rejects
/// duplicates: in a payroll request a repeated key is ambiguous).
public struct JSONObject: Sendable, Equatable {
    public var keys: [String]
    public var values: [JSONValue]

    public init(keys: [String] = [], values: [JSONValue] = []) {
        self.keys = keys
        self.values = values
    }

    /// The value of `key`, or nil when absent. Objects of a request are small, so a linear
    /// scan is faster than hashing.
    public subscript(key: String) -> JSONValue? {
        var i = 0
        while i < keys.count {
            if keys[i] == key { return values[i] }
            i += 1
        }
        return nil
    }
}
