/// A type PushCore reads an APNs header value into (`APNsPushType`, `APNsPriority`, `APNsID`):
/// nil for a value APNs refuses.
public protocol APNsHeaderRepresentable: Sendable, Hashable {
    init?(header: String)
    var header: String { get }
}

/// An APNs header value as a request carries it: one of PushCore's typed values, or the text of
/// one APNs refuses, kept as it came so the request rules can name it (the gateway answers it
/// with the rule's reason; `pushlab validate --push-type banner` reports it as a finding).
public enum APNsHeaderValue<Known: APNsHeaderRepresentable>: Sendable, Hashable, CustomStringConvertible {
    case known(Known)
    case unrecognized(String)

    public init(header: String) {
        if let known = Known(header: header) { self = .known(known) } else { self = .unrecognized(header) }
    }

    /// The typed value; nil for one APNs refuses.
    public var known: Known? {
        if case .known(let value) = self { return value }
        return nil
    }

    /// The value as it is (or would be) on the wire.
    public var header: String {
        switch self {
        case .known(let value): return value.header
        case .unrecognized(let text): return text
        }
    }

    public var description: String { header }
}

extension APNsPushType: APNsHeaderRepresentable {
    public init?(header: String) { self.init(rawValue: header) }
    public var header: String { rawValue }
}

extension APNsPriority: APNsHeaderRepresentable {}
