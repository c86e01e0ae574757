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

/// A channel's settings: the create body, and what a read answers.
public struct BroadcastChannelSettings: Sendable, Hashable {
    public var storagePolicy: ChannelStoragePolicy
    public var pushType: String

    public init(storagePolicy: ChannelStoragePolicy, pushType: String = BroadcastChannelAPI.channelPushType) {
        self.storagePolicy = storagePolicy
        self.pushType = pushType
    }

    /// The JSON both the create request and the read answer carry.
    public var body: [UInt8] {
        Array(#"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"\#(pushType)"}"#.utf8)
    }

    /// Parses a create body the way APNs checks it, in this order: empty body, not a JSON
    /// object, storage policy missing, storage policy not 0/1, push type missing, push type not
    /// `LiveActivity`. (Which reason APNs gives a bad policy value is not documented: pushlab
    /// answers `BadRequestParams`.)
    public static func parseCreateBody(_ body: [UInt8]) -> Result<BroadcastChannelSettings, ChannelReason> {
        if body.isEmpty { return .failure(.apns(.payloadEmpty)) }
        guard let document = try? JSONDocument.parse(body), case .object(let object) = document.root else {
            return .failure(.badRequestPayload)
        }
        guard let policyValue = object["message-storage-policy"] else { return .failure(.missingChannelQueueSize) }
        guard let number = policyValue.numberValue?.intValue, let policy = ChannelStoragePolicy(rawValue: number) else {
            return .failure(.badRequestParams)
        }
        guard let pushType = object["push-type"] else { return .failure(.missingPushType) }
        guard pushType.stringValue == BroadcastChannelAPI.channelPushType else { return .failure(.apns(.invalidPushType)) }
        return .success(BroadcastChannelSettings(storagePolicy: policy))
    }

    /// Reads a read answer's body; nil when it is not one.
    public init?(answer body: [UInt8]) {
        guard let document = try? JSONDocument.parse(body), case .object(let object) = document.root,
              let number = object["message-storage-policy"]?.numberValue?.intValue,
              let policy = ChannelStoragePolicy(rawValue: number) else { return nil }
        self.init(storagePolicy: policy, pushType: object["push-type"]?.stringValue ?? BroadcastChannelAPI.channelPushType)
    }
}
