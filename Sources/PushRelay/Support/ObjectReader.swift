import PushCore

/// A field that is missing, of the wrong type or out of range, named by its JSON pointer.
public struct FieldError: Error, Sendable, Hashable, CustomStringConvertible {
    public var pointer: JSONPointer
    public var message: String
    public var fix: String
    public init(_ pointer: JSONPointer, _ message: String, fix: String) {
        self.pointer = pointer
        self.message = message
        self.fix = fix
    }
    public var description: String { "\(pointer): \(message)" }
}

/// Reads typed members of one JSON object, each error naming the member's pointer. Shared by
/// the config file and the API's request bodies.
struct ObjectReader {
    let object: JSONObject
    let pointer: JSONPointer

    init(_ value: JSONValue, at pointer: JSONPointer, what: String = "an object") throws(FieldError) {
        guard case .object(let object) = value else {
            throw FieldError(pointer, "must be \(what), got \(value.typeName)", fix: "write \(what) here, e.g. {}")
        }
        self.object = object
        self.pointer = pointer
    }

    var keys: [String] { object.keys }

    func has(_ key: String) -> Bool { object[key] != nil && object[key]?.isNull == false }

    /// Members not in `allowed` are errors (a typo must not silently do nothing).
    func rejectUnknown(_ allowed: Set<String>) throws(FieldError) {
        for key in object.keys where !allowed.contains(key) {
            throw FieldError(pointer / key, "unknown field '\(key)'", fix: "remove it or use one of: \(allowed.sorted().joined(separator: ", "))")
        }
    }

    func value(_ key: String) -> JSONValue? {
        guard let v = object[key], !v.isNull else { return nil }
        return v
    }

    func string(_ key: String, example: String) throws(FieldError) -> String? {
        guard let v = value(key) else { return nil }
        guard case .string(let s) = v else {
            throw FieldError(pointer / key, "must be a string, got \(v.typeName)", fix: "write it as a string, e.g. \"\(example)\"")
        }
        return s
    }

    func requiredString(_ key: String, example: String) throws(FieldError) -> String {
        guard let s = try string(key, example: example), !s.isEmpty else {
            throw FieldError(pointer / key, "is required", fix: "add \"\(key)\": \"\(example)\"")
        }
        return s
    }

    func int(_ key: String, range: ClosedRange<Int>) throws(FieldError) -> Int? {
        guard let v = value(key) else { return nil }
        guard case .number(let n) = v, let i = n.intValue else {
            throw FieldError(pointer / key, "must be a whole number, got \(v.describedForMessage)",
                             fix: "write a number from \(range.lowerBound) to \(range.upperBound)")
        }
        guard range.contains(i) else {
            throw FieldError(pointer / key, "\(i) is out of range", fix: "write a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return i
    }

    func bool(_ key: String) throws(FieldError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard case .bool(let b) = v else {
            throw FieldError(pointer / key, "must be true or false, got \(v.describedForMessage)", fix: "write true or false")
        }
        return b
    }

    func object(_ key: String) throws(FieldError) -> ObjectReader? {
        guard let v = value(key) else { return nil }
        return try ObjectReader(v, at: pointer / key)
    }

    func stringArray(_ key: String, example: String) throws(FieldError) -> [String]? {
        guard let v = value(key) else { return nil }
        guard case .array(let array) = v else {
            throw FieldError(pointer / key, "must be an array of strings, got \(v.typeName)", fix: "write [\"\(example)\"]")
        }
        var out: [String] = []
        out.reserveCapacity(array.count)
        for (i, element) in array.elements.enumerated() {
            guard case .string(let s) = element else {
                throw FieldError(pointer / key / i, "must be a string, got \(element.typeName)", fix: "write it as a string, e.g. \"\(example)\"")
            }
            out.append(s)
        }
        return out
    }

    func oneOf<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(FieldError) -> T? where T.RawValue == String {
        guard let raw = try string(key, example: T.allCases.first?.rawValue ?? "") else { return nil }
        guard let v = T(rawValue: raw) else {
            throw FieldError(pointer / key, "'\(raw)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))",
                             fix: "write one of: \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return v
    }
}
