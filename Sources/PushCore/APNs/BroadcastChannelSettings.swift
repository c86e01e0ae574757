import Foundation

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
