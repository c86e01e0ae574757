import Foundation
import PushCore

/// An app's `ActivityAttributes` type as the app profile declares it: the static attributes and
/// the `ContentState` fields, each with a type. iOS decodes `content-state` into `ContentState`
/// with a default `JSONDecoder` (docs/specs/apns.md "Per-device Live Activity pushes"), so the
/// emulator checks a push the same way: a missing non-optional field or a wrong type fails the
/// decode and the update is not applied; extra keys are ignored.
///
/// Field types: `string`, `int`, `double`, `bool`, `date` (a number: the default decoder reads
/// `Date` as seconds since 2001-01-01), `object`, `array`; a trailing `?` makes it optional.
public struct LiveActivitySchema: Codable, Sendable, Equatable {
    public var attributesType: String
    public var attributes: [String: String]
    public var contentState: [String: String]

    public init(attributesType: String, attributes: [String: String] = [:], contentState: [String: String]) {
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
    }

    public static let fieldTypes = ["string", "int", "double", "bool", "date", "object", "array"]

    /// Why `value` would not decode as `fields`, worded like Swift's `DecodingError`; nil when it decodes.
    public static func decodingFailure(_ value: JSONValue?, as fields: [String: String], at path: String) -> String? {
        guard let object = value?.objectValue else {
            return "typeMismatch: expected a keyed container (object) at \(path), found \(value?.describedForMessage ?? "nothing")"
        }
        for name in fields.keys.sorted() {
            let declared = fields[name]!
            let optional = declared.hasSuffix("?")
            let type = optional ? String(declared.dropLast()) : declared
            guard let member = object[name], !member.isNull else {
                if optional { continue }
                return object[name] == nil ? "keyNotFound: \"\(name)\" at \(path)" : "valueNotFound: \(type) at \(path)/\(name) is null"
            }
            if !matches(member, type) {
                return "typeMismatch: expected \(type) at \(path)/\(name), found \(member.describedForMessage)"
            }
        }
        return nil
    }

    static func matches(_ value: JSONValue, _ type: String) -> Bool {
        switch type {
        case "string": return value.stringValue != nil
        case "int": return value.numberValue?.intValue != nil
        case "double", "date": return value.numberValue != nil
        case "bool": return value.boolValue != nil
        case "object": return value.objectValue != nil
        case "array": return value.arrayValue != nil
        default: return false
        }
    }

    /// Declared field types pushlab does not know, as JSON pointers inside the schema.
    public var unknownFieldTypes: [String] {
        var out: [String] = []
        for (section, fields) in [("attributes", attributes), ("contentState", contentState)] {
            for (name, type) in fields where !LiveActivitySchema.fieldTypes.contains(type.hasSuffix("?") ? String(type.dropLast()) : type) {
                out.append("/\(section)/\(name)")
            }
        }
        return out.sorted()
    }
}
