/// Why one request or one employee could not be computed. `field` is a dotted path into the
/// request (`shifts[3].end`), so the error names the record and the field.
public struct PayrollError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidJSON = "invalid_json"
        case unknownField = "unknown_field"
        case missingField = "missing_field"
        case invalidValue = "invalid_value"
        case unsupported
    }

    public var code: Code
    public var message: String
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String {
        field.map { "\(code.rawValue) at \($0): \(message)" } ?? "\(code.rawValue): \(message)"
    }
}
