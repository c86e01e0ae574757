import Foundation
import PushCore

/// Metric bodies are read with PushCore's JSON routines (byte-level, booleans distinct from
/// numbers, no Foundation bridging): fast enough for the event loop.
enum IngestJSON {
    /// Every member name the metric routes read (`MetricRequestParser`); the index lists only these.
    static let readMembers: JSONMemberNames = {
        typealias T = CIOMetricBody.TrackKey
        typealias B = CIOMetricBody.BatchKey
        typealias L = CIOMetricBody.LegacyKey
        return [T.type, T.event, T.properties, T.anonymousId, T.userId, T.timestamp, T.metric, T.deliveryId, T.recipient,
                B.batch, B.writeKey, L.deliveryID, L.deviceID, L.event, L.timestamp]
    }()

    /// Throws `emptyBody` for a body of nothing but whitespace.
    static func requireContent(_ bytes: [UInt8]) throws(MetricRejection) {
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw .emptyBody
        }
    }

    /// The body indexed down to `readMembers` (a CDP event's `context`, `integrations` and the
    /// host app's own properties are validated, not listed); nil when it is not JSON. The checks
    /// read nothing else, so they decide exactly as on the whole document
    /// (`MetricRequestParserPruningTests`).
    static func index(_ bytes: [UInt8]) -> JSONIndex.Value? {
        JSONIndex(bytes, keepingMembersNamed: readMembers)?.root
    }

    /// The whole document; a body that is not JSON is refused with the parser's own error.
    static func parse(_ bytes: [UInt8]) throws(MetricRejection) -> JSONValue {
        do {
            return try JSONParser().parse(bytes).root
        } catch {
            throw .malformedJSON(detail: error.description)
        }
    }

    /// `a string`, `an object` … for messages.
    static func typeName(_ value: some IngestValue) -> String {
        switch value.kind {
        case .null: return "null"
        case .array, .object: return "an \(value.kind.typeName)"
        default: return "a \(value.kind.typeName)"
        }
    }
}

/// What the metric checks read of a JSON value: the index the collector reads bodies with
/// (`JSONIndex.Value`) and the whole document (`JSONValue`, the reference it is tested against).
protocol IngestValue {
    var kind: JSONValueKind { get }
    var isNull: Bool { get }
    var isObject: Bool { get }
    var stringValue: String? { get }
    var isString: Bool { get }
    /// True when this is the string `text` (the index compares bytes, building no string).
    func isString(_ text: String) -> Bool
    var numberValue: JSONNumber? { get }
    /// The member named `key` of an object (the last of duplicates).
    func member(_ key: String) -> Self?
    /// An array's elements; nil for anything else.
    var elements: [Self]? { get }
}

extension JSONIndex.Value: IngestValue {}

extension JSONValue: IngestValue {
    var isObject: Bool { objectValue != nil }
    var isString: Bool { stringValue != nil }
    func isString(_ text: String) -> Bool { stringValue == text }
    func member(_ key: String) -> JSONValue? { objectValue?[key] }
    var elements: [JSONValue]? { arrayValue?.elements }
}

/// Reads fields of one JSON object, turning every absence or wrong type into the
/// `MetricRejection` that names its pointer.
struct FieldReader<Value: IngestValue> {
    /// One step of a JSON pointer below `base`.
    enum Step {
        case member(String)
        case index(Int)
    }

    /// An object.
    let object: Value
    /// The object's JSON pointer is `base` followed by `steps`: kept in parts and joined only
    /// when an error names it, since an accepted body never needs it (joining cost a string
    /// per object on every request).
    private let base: String
    private let steps: (Step?, Step?, Step?)

    init(_ value: Value, pointer: String) throws(MetricRejection) {
        try self.init(value, base: pointer, steps: (nil, nil, nil))
    }

    private init(_ value: Value, base: String, steps: (Step?, Step?, Step?)) throws(MetricRejection) {
        guard value.isObject else { throw .notAnObject(pointer: Self.join(base, steps)) }
        object = value
        self.base = base
        self.steps = steps
    }

    var pointer: String { Self.join(base, steps) }

    private static func join(_ base: String, _ steps: (Step?, Step?, Step?)) -> String {
        var pointer = base
        for step in [steps.0, steps.1, steps.2] {
            switch step {
            case .member(let key)?: pointer += "/\(key)"
            case .index(let i)?: pointer += "/\(i)"
            case nil: break
            }
        }
        return pointer
    }

    /// The reader of `value`, found at `step` below this object.
    func child(_ value: Value, _ step: Step) throws(MetricRejection) -> FieldReader {
        switch steps {
        case (nil, _, _): return try FieldReader(value, base: base, steps: (step, nil, nil))
        case (let a?, nil, _): return try FieldReader(value, base: base, steps: (a, step, nil))
        case (let a?, let b?, nil): return try FieldReader(value, base: base, steps: (a, b, step))
        default: return try FieldReader(value, base: pointer, steps: (step, nil, nil))  // deeper than the routes' bodies go
        }
    }

    /// The reader of `value`, found at `first` then `second` below this object.
    func child(_ value: Value, _ first: Step, _ second: Step) throws(MetricRejection) -> FieldReader {
        switch steps {
        case (nil, _, _): return try FieldReader(value, base: base, steps: (first, second, nil))
        case (let a?, nil, _): return try FieldReader(value, base: base, steps: (a, first, second))
        default: return try FieldReader(value, base: pointer, steps: (first, second, nil))  // deeper than the routes' bodies go
        }
    }

    func at(_ key: String) -> String { "\(pointer)/\(key)" }

    /// The member `key`, nil when absent or null.
    func value(_ key: String) -> Value? {
        guard let v = object.member(key), !v.isNull else { return nil }
        return v
    }

    /// Member `key` when it is a string; nil when absent or null; `wrongType` for another type.
    private func stringMember(_ key: String) throws(MetricRejection) -> Value? {
        guard let v = value(key) else { return nil }
        guard v.isString else { throw .wrongType(pointer: at(key), expected: "a string, not \(IngestJSON.typeName(v))") }
        return v
    }

    /// `expected` is built only for the error (an accepted body never needs it).
    func string(_ key: String, _ expected: @autoclosure () -> String) throws(MetricRejection) -> String {
        guard let v = try stringMember(key), let s = v.stringValue else { throw .missingField(pointer: at(key), expected: expected()) }
        return s
    }

    /// Whether member `key` is the string `text`: `string(key) == text` without building it.
    func string(_ key: String, is text: String, _ expected: @autoclosure () -> String) throws(MetricRejection) -> Bool {
        guard let v = try stringMember(key) else { throw .missingField(pointer: at(key), expected: expected()) }
        return v.isString(text)
    }

    func optionalString(_ key: String) throws(MetricRejection) -> String? {
        try stringMember(key)?.stringValue
    }

    /// `optionalString(key) == text` without building the string.
    func optionalString(_ key: String, is text: String) throws(MetricRejection) -> Bool {
        try stringMember(key)?.isString(text) ?? false
    }

    /// `optionalString(key) != nil` without building the string.
    func hasString(_ key: String) throws(MetricRejection) -> Bool {
        try stringMember(key) != nil
    }

    func reader(_ key: String, _ expected: @autoclosure () -> String) throws(MetricRejection) -> FieldReader {
        guard let v = value(key) else { throw .missingField(pointer: at(key), expected: expected()) }
        return try child(v, .member(key))
    }
}
