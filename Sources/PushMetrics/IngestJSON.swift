import Foundation
import PushCore

/// Metric bodies are parsed with PushCore's JSON parser (byte-level, booleans distinct from
/// numbers, no Foundation bridging): fast enough for the event loop.
enum IngestJSON {
    /// Every member name the metric routes read (`MetricRequestParser`); objects keep only these.
    static let readMembers: JSONMemberNames = {
        typealias T = CIOMetricBody.TrackKey
        typealias B = CIOMetricBody.BatchKey
        typealias L = CIOMetricBody.LegacyKey
        return [T.type, T.event, T.properties, T.anonymousId, T.userId, T.timestamp, T.metric, T.deliveryId, T.recipient,
                B.batch, B.writeKey, L.deliveryID, L.deviceID, L.event, L.timestamp]
    }()

    /// `pruned`: objects keep only `readMembers` — the other members (a CDP event's `context`,
    /// `integrations`, the host app's own properties) are validated but not built. The checks
    /// read nothing else, so they decide exactly as on the whole document
    /// (`MetricRequestParserPruningTests`); a refused body is parsed again whole, so its error
    /// is the parser's own.
    static func parse(_ bytes: [UInt8], pruned: Bool = true) throws(MetricRejection) -> JSONValue {
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw .emptyBody
        }
        if pruned, let document = try? JSONParser().parse(bytes, keepingMembersNamed: readMembers) {
            return document.root
        }
        do {
            return try JSONParser().parse(bytes).root
        } catch {
            throw .malformedJSON(detail: error.description)
        }
    }

    /// `a string`, `an object` … for messages.
    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .array, .object: return "an \(value.typeName)"
        default: return "a \(value.typeName)"
        }
    }
}

/// Reads fields of one JSON object, turning every absence or wrong type into the
/// `MetricRejection` that names its pointer.
struct FieldReader {
    /// One step of a JSON pointer below `base`.
    enum Step {
        case member(String)
        case index(Int)
    }

    let object: JSONObject
    /// The object's JSON pointer is `base` followed by `steps`: kept in parts and joined only
    /// when an error names it, since an accepted body never needs it (joining cost a string
    /// per object on every request).
    private let base: String
    private let steps: (Step?, Step?, Step?)

    init(_ value: JSONValue, pointer: String) throws(MetricRejection) {
        try self.init(value, base: pointer, steps: (nil, nil, nil))
    }

    private init(_ value: JSONValue, base: String, steps: (Step?, Step?, Step?)) throws(MetricRejection) {
        guard case .object(let o) = value else { throw .notAnObject(pointer: Self.join(base, steps)) }
        object = o
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
    func child(_ value: JSONValue, _ step: Step) throws(MetricRejection) -> FieldReader {
        switch steps {
        case (nil, _, _): return try FieldReader(value, base: base, steps: (step, nil, nil))
        case (let a?, nil, _): return try FieldReader(value, base: base, steps: (a, step, nil))
        case (let a?, let b?, nil): return try FieldReader(value, base: base, steps: (a, b, step))
        default: return try FieldReader(value, base: pointer, steps: (step, nil, nil))  // deeper than the routes' bodies go
        }
    }

    /// The reader of `value`, found at `first` then `second` below this object.
    func child(_ value: JSONValue, _ first: Step, _ second: Step) throws(MetricRejection) -> FieldReader {
        switch steps {
        case (nil, _, _): return try FieldReader(value, base: base, steps: (first, second, nil))
        case (let a?, nil, _): return try FieldReader(value, base: base, steps: (a, first, second))
        default: return try FieldReader(value, base: pointer, steps: (first, second, nil))  // deeper than the routes' bodies go
        }
    }

    func at(_ key: String) -> String { "\(pointer)/\(key)" }

    /// The member `key`, nil when absent or null.
    func value(_ key: String) -> JSONValue? {
        guard let v = object[key], !v.isNull else { return nil }
        return v
    }

    /// `expected` is built only for the error (an accepted body never needs it).
    func string(_ key: String, _ expected: @autoclosure () -> String) throws(MetricRejection) -> String {
        guard let v = value(key) else { throw .missingField(pointer: at(key), expected: expected()) }
        guard case .string(let s) = v else { throw .wrongType(pointer: at(key), expected: "a string, not \(IngestJSON.typeName(v))") }
        return s
    }

    func optionalString(_ key: String) throws(MetricRejection) -> String? {
        guard let v = value(key) else { return nil }
        guard case .string(let s) = v else { throw .wrongType(pointer: at(key), expected: "a string, not \(IngestJSON.typeName(v))") }
        return s
    }

    func reader(_ key: String, _ expected: @autoclosure () -> String) throws(MetricRejection) -> FieldReader {
        guard let v = value(key) else { throw .missingField(pointer: at(key), expected: expected()) }
        return try child(v, .member(key))
    }
}
