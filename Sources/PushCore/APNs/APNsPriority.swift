/// The `apns-priority` header (docs/specs/apns.md "Request"): 10 sends at once, 5 when the device
/// saves power, 1 lowest. APNs answers any other value with BadPriority, so an `APNsPriority`
/// only ever holds one of these three.
public struct APNsPriority: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int

    /// Send immediately (the default for everything but background pushes).
    public static let immediate = APNsPriority(checked: 10)
    /// Send when the device is power-efficient to reach; background pushes must use it.
    public static let powerConsiderate = APNsPriority(checked: 5)
    /// Lowest: may be grouped and delayed.
    public static let low = APNsPriority(checked: 1)

    public static let allCases: [APNsPriority] = [.immediate, .powerConsiderate, .low]

    /// Nil for any value APNs refuses.
    public init?(rawValue: Int) {
        guard rawValue == 10 || rawValue == 5 || rawValue == 1 else { return nil }
        self.rawValue = rawValue
    }

    /// Reads the header value exactly as it arrived: "10", "5" or "1" (no sign, no padding).
    public init?(header: String) {
        switch header {
        case "10": self = .immediate
        case "5": self = .powerConsiderate
        case "1": self = .low
        default: return nil
        }
    }

    private init(checked rawValue: Int) { self.rawValue = rawValue }

    /// The header value.
    public var header: String { String(rawValue) }
    public var description: String { header }
}
