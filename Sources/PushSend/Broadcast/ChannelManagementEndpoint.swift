import PushCore

/// Where channel-management requests go (docs/specs/apns.md "Channel management"): Apple's
/// own hosts and ports, or any server speaking the API (the emulator).
public struct ChannelManagementEndpoint: Sendable, Hashable, CustomStringConvertible {
    public let baseURL: String

    public static let sandbox = ChannelManagementEndpoint(
        baseURL: "https://\(BroadcastChannelAPI.sandboxHost):\(BroadcastChannelAPI.sandboxPort)")
    public static let production = ChannelManagementEndpoint(
        baseURL: "https://\(BroadcastChannelAPI.productionHost):\(BroadcastChannelAPI.productionPort)")

    /// Any http(s) URL with a host; a path after the host is ignored.
    public static func custom(_ url: String) throws(APNsEndpointError) -> ChannelManagementEndpoint {
        ChannelManagementEndpoint(baseURL: try APNsEndpoint.custom(url).baseURL)
    }

    public init(baseURL: String) { self.baseURL = baseURL }
    public var description: String { baseURL }
}
