/// A push's id: `p_` + 26 characters (time-ordered, random tail). Assigned by the API
/// (`PushIDSource`); on the wire (JSON, webhooks, gorush's output, the queues) it is that string.
public struct PushID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Ids written out in tests and examples.
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    public static func < (a: PushID, b: PushID) -> Bool { a.rawValue < b.rawValue }

    /// Coded as the bare string, as before it had a type of its own.
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
