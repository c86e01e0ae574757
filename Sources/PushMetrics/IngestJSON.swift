import Foundation
import PushCore

/// Metric bodies are parsed with PushCore's JSON parser (byte-level, booleans distinct from
/// numbers, no Foundation bridging): fast enough for the event loop.
enum IngestJSON {
    static func parse(_ bytes: [UInt8]) throws(MetricRejection) -> JSONValue {
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw .emptyBody
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
