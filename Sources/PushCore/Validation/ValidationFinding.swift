import Foundation

/// One problem found in a payload: which rule, where (JSON pointer, or a header name for APNs
/// request headers), what exactly and how to fix it.
public struct ValidationFinding: Sendable, Hashable, Codable {
    public var ruleID: String
    public var severity: Severity
    public var enforcedBy: Enforcement
    /// Where in the document; nil for findings about headers or the token.
    public var pointer: JSONPointer?
    /// The APNs request header the finding is about (`apns-priority`), when not in the document.
    public var header: String?
    public var message: String
    public var fix: String
    /// Line and column in the source, when the document was parsed from text.
    public var location: JSONSourceLocation?

    public init(rule: ValidationRule, pointer: JSONPointer?, header: String? = nil, message: String,
                fix: String? = nil, location: JSONSourceLocation? = nil) {
        ruleID = rule.id
        severity = rule.severity
        enforcedBy = rule.enforcedBy
        self.pointer = pointer
        self.header = header
        self.message = message
        self.fix = fix ?? rule.fix
        self.location = location
    }

    public var rule: ValidationRule? { RuleCatalog.rule(ruleID) }

    /// `/aps/badge`, `header apns-priority`, `(root)`, or `-` for syntax errors (no value yet).
    public var place: String {
        if let header { return "header \(header)" }
        return pointer?.displayString ?? "-"
    }

    enum CodingKeys: String, CodingKey { case rule, severity, enforcedBy, pointer, header, message, fix, line, column, offset }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ruleID, forKey: .rule)
        try c.encode(severity, forKey: .severity)
        try c.encode(enforcedBy, forKey: .enforcedBy)
        try c.encodeIfPresent(pointer?.description, forKey: .pointer)
        try c.encodeIfPresent(header, forKey: .header)
        try c.encode(message, forKey: .message)
        try c.encode(fix, forKey: .fix)
        try c.encodeIfPresent(location?.line, forKey: .line)
        try c.encodeIfPresent(location?.column, forKey: .column)
        try c.encodeIfPresent(location?.offset, forKey: .offset)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ruleID = try c.decode(String.self, forKey: .rule)
        severity = try c.decode(Severity.self, forKey: .severity)
        enforcedBy = try c.decode(Enforcement.self, forKey: .enforcedBy)
        pointer = try c.decodeIfPresent(String.self, forKey: .pointer).flatMap(JSONPointer.init(parsing:))
        header = try c.decodeIfPresent(String.self, forKey: .header)
        message = try c.decode(String.self, forKey: .message)
        fix = try c.decode(String.self, forKey: .fix)
        if let line = try c.decodeIfPresent(Int.self, forKey: .line), let column = try c.decodeIfPresent(Int.self, forKey: .column) {
            location = JSONSourceLocation(offset: try c.decodeIfPresent(Int.self, forKey: .offset) ?? 0, line: line, column: column)
        }
    }
}
