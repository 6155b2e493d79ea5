/// How sure the rules spec is of a parameter (its tags [H], [M], [UNVERIFIED]).
public enum Confidence: String, Sendable {
    case high = "H"
    case medium = "M"
    case unverified = "UNVERIFIED"
}

/// One version of a statutory parameter: its value, the dates it applies to, and where it comes
/// from (law, notice number, spec section). Every statutory number in payrun is one of these.
public struct EffectiveDated<Value: Sendable>: Sendable {
    public let value: Value
    /// First date (inclusive) this version applies to.
    public let from: LocalDate
    /// First date it no longer applies to; nil = open-ended.
    public let toExclusive: LocalDate?
    public let source: String
    public let confidence: Confidence

    public init(_ value: Value, from: LocalDate, toExclusive: LocalDate?, source: String, confidence: Confidence = .high) {
        self.value = value
        self.from = from
        self.toExclusive = toExclusive
        self.source = source
        self.confidence = confidence
    }

    public func covers(_ date: LocalDate) -> Bool {
        date >= from && (toExclusive.map { date < $0 } ?? true)
    }
}

/// The versions of one parameter, selected by a date. Which date (work date, premium month,
/// payment date) depends on the parameter family — §0.3 of the rules spec.
public struct ParameterTable<Value: Sendable>: Sendable {
    public let name: String
    public let versions: [EffectiveDated<Value>]

    public init(_ name: String, _ versions: [EffectiveDated<Value>]) {
        self.name = name
        self.versions = versions.sorted { $0.from < $1.from }
    }

    /// The version in force on `date`, or nil when the table does not cover it.
    public func version(on date: LocalDate) -> EffectiveDated<Value>? {
        // Few versions per table: a reverse linear scan beats a binary search here.
        var i = versions.count - 1
        while i >= 0 {
            if versions[i].covers(date) { return versions[i] }
            i -= 1
        }
        return nil
    }

    public func value(on date: LocalDate) -> Value? { version(on: date)?.value }
}

/// Shorthand for dates in parameter tables: `day(2026, 7, 1)`. Traps on an impossible literal.
@inlinable func day(_ y: Int, _ m: Int, _ d: Int) -> LocalDate { LocalDate(year: y, month: m, day: d)! }
