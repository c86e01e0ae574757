import Foundation
import PushCore

/// The broadcast channels the emulator knows, per bundle id, with their storage policy, their
/// subscribers and (policy "most recent") the last message (docs/specs/apns.md "Channel management").
///
/// Thread-safe: the APNs routes, the admin routes and the devices use it concurrently.
public final class BroadcastChannelRegistry: @unchecked Sendable {
    struct Channel {
        var bundleID: String
        var settings: BroadcastChannelSettings
        var subscribers: [ChannelSubscriber] = []
        var stored: AcceptedBroadcast?
    }

    // Protected by `lock`; `order` keeps creation order for `list`.
    private var channels: [String: Channel] = [:]
    private var order: [String] = []
    private var random = SystemRandomNumberGenerator()
    private let limit: Int
    private let lock = NSLock()

    public init(limit: Int = BroadcastChannelAPI.maximumChannels) { self.limit = limit }

    /// Creates a channel and returns its id (base64 of 16 random bytes, as APNs issues them).
    public func create(bundleID: String, settings: BroadcastChannelSettings) -> Result<String, ChannelReason> {
        lock.withLock {
            if channels.count >= limit { return .failure(.cannotCreateChannelConfig) }
            var bytes = [UInt8](repeating: 0, count: 16)
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &random) }
            let id = Data(bytes).base64EncodedString()
            channels[id] = Channel(bundleID: bundleID, settings: settings)
            order.append(id)
            return .success(id)
        }
    }

    public func settings(bundleID: String, channelID: String) -> Result<BroadcastChannelSettings, ChannelReason> {
        lock.withLock { find(bundleID, channelID).map(\.settings) }
    }

    public func list(bundleID: String) -> [String] {
        lock.withLock { order.filter { channels[$0]?.bundleID == bundleID } }
    }

    public func delete(bundleID: String, channelID: String) -> Result<Void, ChannelReason> {
        lock.withLock {
            find(bundleID, channelID).map { _ in
                channels[channelID] = nil
                order.removeAll { $0 == channelID }
            }
        }
    }

    /// A device's activity subscribes (`pushType: .channel(id)`). Returns the stored message to
    /// replay when the channel keeps the most recent one, nil otherwise; `.failure` when the
    /// channel does not exist.
    public func subscribe(_ subscriber: ChannelSubscriber, to channelID: String) -> Result<AcceptedBroadcast?, ChannelReason> {
        lock.withLock {
            guard channels[channelID] != nil else { return .failure(.channelNotRegistered) }
            channels[channelID]!.subscribers.append(subscriber)
            let channel = channels[channelID]!
            guard channel.settings.storagePolicy == .mostRecentMessage, var stored = channel.stored else { return .success(nil) }
            stored.isStoredReplay = true
            return .success(stored)
        }
    }

    public func exists(_ channelID: String) -> Bool { lock.withLock { channels[channelID] != nil } }

    public func subscribers(of channelID: String) -> [ChannelSubscriber] {
        lock.withLock { channels[channelID]?.subscribers ?? [] }
    }

    /// Records an accepted broadcast (kept when the policy says so) and returns its subscribers.
    func accept(_ broadcast: AcceptedBroadcast) -> [ChannelSubscriber] {
        lock.withLock {
            guard channels[broadcast.channelID] != nil else { return [] }
            if channels[broadcast.channelID]!.settings.storagePolicy == .mostRecentMessage {
                channels[broadcast.channelID]!.stored = broadcast
            }
            return channels[broadcast.channelID]!.subscribers
        }
    }

    private func find(_ bundleID: String, _ channelID: String) -> Result<Channel, ChannelReason> {
        guard let channel = channels[channelID], channel.bundleID == bundleID else { return .failure(.channelNotRegistered) }
        return .success(channel)
    }
}
