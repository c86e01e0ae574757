import Foundation

/// A parsed JSON document, just enough to check metric bodies field by field with exact
/// pointers (strings, numbers and booleans stay distinct, unlike `JSONSerialization`).
enum IngestJSON: Decodable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([IngestJSON])
    case object([String: IngestJSON])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([IngestJSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: IngestJSON].self)) }
    }

    static func parse(_ bytes: [UInt8]) throws(MetricRejection) -> IngestJSON {
        guard !bytes.isEmpty, bytes.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw .emptyBody
        }
        do {
            return try JSONDecoder().decode(IngestJSON.self, from: Data(bytes))
        } catch let DecodingError.dataCorrupted(context) {
            let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw .malformedJSON(detail: detail ?? context.debugDescription)
        } catch {
            throw .malformedJSON(detail: "\(error)")
        }
    }

    var typeName: String {
        switch self {
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    subscript(key: String) -> IngestJSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
}

/// Reads fields of one JSON object, turning every absence or wrong type into the
/// `MetricRejection` that names its pointer.
struct FieldReader {
    let object: [String: IngestJSON]
    let pointer: String

    init(_ value: IngestJSON, pointer: String) throws(MetricRejection) {
        guard case .object(let o) = value else { throw .notAnObject(pointer: pointer) }
        object = o
        self.pointer = pointer
    }

    func at(_ key: String) -> String { "\(pointer)/\(key)" }

    func string(_ key: String, _ expected: String) throws(MetricRejection) -> String {
        guard let v = object[key], v != .null else { throw .missingField(pointer: at(key), expected: expected) }
        guard case .string(let s) = v else { throw .wrongType(pointer: at(key), expected: "a string, not \(v.typeName)") }
        return s
    }

    func optionalString(_ key: String) throws(MetricRejection) -> String? {
        guard let v = object[key], v != .null else { return nil }
        guard case .string(let s) = v else { throw .wrongType(pointer: at(key), expected: "a string, not \(v.typeName)") }
        return s
    }

    func reader(_ key: String, _ expected: String) throws(MetricRejection) -> FieldReader {
        guard let v = object[key], v != .null else { throw .missingField(pointer: at(key), expected: expected) }
        return try FieldReader(v, pointer: at(key))
    }
}
