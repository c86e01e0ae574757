import Foundation
import PushCore
import Synchronization

/// The broadcast channels the emulator knows, per bundle id, with their storage policy, their
/// subscribers and (policy "most recent") the last message (docs/specs/apns.md "Channel management").
///
/// Thread-safe: the APNs routes, the admin routes and the devices use it concurrently.
public final class BroadcastChannelRegistry: Sendable {
    struct Channel {
        var bundleID: String
        var settings: BroadcastChannelSettings
        var subscribers: [ChannelSubscriber] = []
        var stored: AcceptedBroadcast?
    }

    private struct State {
        var channels: [String: Channel] = [:]
        /// Creation order, for `list`.
        var order: [String] = []
        var random = SystemRandomNumberGenerator()

        func find(_ bundleID: String, _ channelID: String) -> Result<Channel, ChannelReason> {
            guard let channel = channels[channelID], channel.bundleID == bundleID else { return .failure(.channelNotRegistered) }
            return .success(channel)
        }
    }
    private let state = Mutex(State())
    private let limit: Int

    public init(limit: Int = BroadcastChannelAPI.maximumChannels) { self.limit = limit }

    /// Creates a channel and returns its id (base64 of 16 random bytes, as APNs issues them).
    public func create(bundleID: String, settings: BroadcastChannelSettings) -> Result<String, ChannelReason> {
        state.withLock { state in
            if state.channels.count >= limit { return .failure(.cannotCreateChannelConfig) }
            var bytes = [UInt8](repeating: 0, count: 16)
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &state.random) }
            let id = Data(bytes).base64EncodedString()
            state.channels[id] = Channel(bundleID: bundleID, settings: settings)
            state.order.append(id)
            return .success(id)
        }
    }

    /// Deletes every channel, its subscribers and stored message (`Gateway.resetStores`).
    func removeAll() {
        state.withLock { state in
            state.channels = [:]
            state.order = []
        }
    }

    public func settings(bundleID: String, channelID: String) -> Result<BroadcastChannelSettings, ChannelReason> {
        state.withLock { $0.find(bundleID, channelID).map(\.settings) }
    }

    public func list(bundleID: String) -> [String] {
        state.withLock { state in state.order.filter { state.channels[$0]?.bundleID == bundleID } }
    }

    public func delete(bundleID: String, channelID: String) -> Result<Void, ChannelReason> {
        state.withLock { state in
            state.find(bundleID, channelID).map { _ in
                state.channels[channelID] = nil
                state.order.removeAll { $0 == channelID }
            }
        }
    }

    /// A device's activity subscribes (`pushType: .channel(id)`). Returns the stored message to
    /// replay when the channel keeps the most recent one, nil otherwise; `.failure` when the
    /// channel does not exist.
    public func subscribe(_ subscriber: ChannelSubscriber, to channelID: String) -> Result<AcceptedBroadcast?, ChannelReason> {
        state.withLock { state in
            guard state.channels[channelID] != nil else { return .failure(.channelNotRegistered) }
            state.channels[channelID]!.subscribers.append(subscriber)
            let channel = state.channels[channelID]!
            guard channel.settings.storagePolicy == .mostRecentMessage, var stored = channel.stored else { return .success(nil) }
            stored.isStoredReplay = true
            return .success(stored)
        }
    }

    public func exists(_ channelID: String) -> Bool { state.withLock { $0.channels[channelID] != nil } }

    public func subscribers(of channelID: String) -> [ChannelSubscriber] {
        state.withLock { $0.channels[channelID]?.subscribers ?? [] }
    }

    /// Records an accepted broadcast (kept when the policy says so) and returns its subscribers.
    func accept(_ broadcast: AcceptedBroadcast) -> [ChannelSubscriber] {
        state.withLock { state in
            guard state.channels[broadcast.channelID] != nil else { return [] }
            if state.channels[broadcast.channelID]!.settings.storagePolicy == .mostRecentMessage {
                state.channels[broadcast.channelID]!.stored = broadcast
            }
            return state.channels[broadcast.channelID]!.subscribers
        }
    }
}
