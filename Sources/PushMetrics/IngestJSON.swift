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
    let object: JSONObject
    let pointer: String

    init(_ value: JSONValue, pointer: String) throws(MetricRejection) {
        guard case .object(let o) = value else { throw .notAnObject(pointer: pointer) }
        object = o
        self.pointer = pointer
    }

    func at(_ key: String) -> String { "\(pointer)/\(key)" }

    /// The member `key`, nil when absent or null.
    func value(_ key: String) -> JSONValue? {
        guard let v = object[key], !v.isNull else { return nil }
        return v
    }

    func string(_ key: String, _ expected: String) throws(MetricRejection) -> String {
        guard let v = value(key) else { throw .missingField(pointer: at(key), expected: expected) }
        guard case .string(let s) = v else { throw .wrongType(pointer: at(key), expected: "a string, not \(IngestJSON.typeName(v))") }
        return s
    }

    func optionalString(_ key: String) throws(MetricRejection) -> String? {
        guard let v = value(key) else { return nil }
        guard case .string(let s) = v else { throw .wrongType(pointer: at(key), expected: "a string, not \(IngestJSON.typeName(v))") }
        return s
    }

    func reader(_ key: String, _ expected: String) throws(MetricRejection) -> FieldReader {
        guard let v = value(key) else { throw .missingField(pointer: at(key), expected: expected) }
        return try FieldReader(v, pointer: at(key))
    }
}
