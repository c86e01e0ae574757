import Foundation
import PushCore

/// A broadcast the emulator accepted, on its way to the channel's subscribers.
public struct AcceptedBroadcast: Sendable {
    public var bundleID: String
    public var channelID: String
    public var payload: [UInt8]
    public var priority: Int
    public var requestID: String
    public var receivedAt: Date
    /// True when this is the channel's stored message replayed to a late subscriber.
    public var isStoredReplay: Bool
}

/// Where accepted broadcasts go: the virtual devices' Live Activities, a test, or nowhere.
public protocol BroadcastDeliverySink: Sendable {
    func deliver(_ broadcast: AcceptedBroadcast, to subscribers: [ChannelSubscriber])
}
