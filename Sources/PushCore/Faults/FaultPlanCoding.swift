import Foundation

// Writing plans back out, and Codable: both use the field names and value texts of the flag
// syntax (FaultPlanParsing.swift), so a plan round-trips through either form unchanged.

extension FaultRule {
    /// The rule's fields in the order of `FaultPlan.fieldNames`, as (name, text) pairs.
    public var fields: [(String, String)] {
        var out: [(String, String)] = [("route", route)]
        if let method { out.append(("method", method)) }
        if probability < 1 { out.append(("p", "\(probability)")) }
        if let requests { out.append(("requests", requests.text)) }
        switch outcome {
        case .status(let code, let retryAfter, let reason)?:
            out.append(("status", "\(code)"))
            if let retryAfter { out.append(("retry-after", "\(retryAfter)")) }
            if let reason { out.append(("reason", reason)) }
        case .drop(let scope)?: out.append(("drop", scope.rawValue))
        case .stall(let d)?: out.append(("stall", d.compactText))
        case nil: break
        }
        if let latency { out.append(("latency", latency.text)) }
        if let goAwayAfterStreams { out.append(("goaway-after", "\(goAwayAfterStreams)")) }
        return out
    }

    /// The compact flag form, e.g. `route=/v1/track,p=0.1,status=503,retry-after=2`.
    public var flagText: String { fields.map { "\($0.0)=\($0.1)" }.joined(separator: ",") }
}

extension FaultPlan: Codable {
    private static let numericFields: Set<String> = ["p", "status", "retry-after", "goaway-after"]

    /// The JSON file form: `{"rules":[{…}],"seed":42}` (keys sorted).
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    private enum Key: String, CodingKey { case seed, rules }

    private struct FieldKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(seed, forKey: .seed)
        var list = container.nestedUnkeyedContainer(forKey: .rules)
        for rule in rules {
            var object = list.nestedContainer(keyedBy: FieldKey.self)
            for (name, text) in rule.fields {
                let key = FieldKey(stringValue: name)
                if Self.numericFields.contains(name), let n = Int(text) {
                    try object.encode(n, forKey: key)
                } else if Self.numericFields.contains(name), let d = Double(text) {
                    try object.encode(d, forKey: key)
                } else {
                    try object.encode(text, forKey: key)
                }
            }
        }
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        seed = try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? 0
        var list = try container.nestedUnkeyedContainer(forKey: .rules)
        var parsed: [FaultRule] = []
        while !list.isAtEnd {
            let index = list.currentIndex
            let object = try list.nestedContainer(keyedBy: FieldKey.self)
            var fields: [(String, String)] = []
            for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                if let s = try? object.decode(String.self, forKey: key) {
                    fields.append((key.stringValue, s))
                } else if let n = try? object.decode(Int.self, forKey: key) {
                    fields.append((key.stringValue, "\(n)"))
                } else {
                    fields.append((key.stringValue, "\(try object.decode(Double.self, forKey: key))"))
                }
            }
            do {
                parsed.append(try FaultPlan.parseRule(fields, location: { field in "/rules/\(index)" + (field.map { "/\($0)" } ?? "") }))
            } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error); fix: \(error.fix)"))
            }
        }
        rules = parsed
    }
}
