import Foundation

/// The channel-management API and the broadcast endpoint (docs/specs/apns.md "Channel management
/// (iOS 18)" and "Broadcast send"): hosts, paths, headers and bodies, shared by the sender
/// (`pushlab channels`, `send apns --channel`) and the gateway emulator.
public enum BroadcastChannelAPI {
    /// Channel management lives on its own hosts and ports, not on the push hosts.
    public static let sandboxHost = "api-manage-broadcast.sandbox.push.apple.com"
    public static let sandboxPort = 2195
    public static let productionHost = "api-manage-broadcast.push.apple.com"
    public static let productionPort = 2196

    /// The channel a read, delete or broadcast is about (base64, as create returned it).
    public static let channelIDHeader = "apns-channel-id"
    /// Optional UUID on every request; APNs echoes it (or makes one up).
    public static let requestIDHeader = "apns-request-id"
    /// The only push type a channel carries, spelled as the create body spells it.
    public static let channelPushType = "LiveActivity"
    /// Channels per app and environment (WWDC24 10069).
    public static let maximumChannels = 10_000

    public static func channelsPath(bundleID: String) -> String { "/1/apps/\(bundleID)/channels" }
    public static func allChannelsPath(bundleID: String) -> String { "/1/apps/\(bundleID)/all-channels" }
    /// The broadcast endpoint, on the ordinary push hosts (port 443).
    public static func broadcastPath(bundleID: String) -> String { "/4/broadcasts/apps/\(bundleID)" }

    /// A channel id as APNs issues them: base64 of 16 bytes. A header that is not base64
    /// (or decodes to nothing) is `BadChannelId`.
    public static func isWellFormedChannelID(_ id: String) -> Bool {
        guard !id.isEmpty, id.count % 4 == 0, let data = Data(base64Encoded: id) else { return false }
        return !data.isEmpty
    }
}
