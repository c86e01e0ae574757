import Foundation
import PushCore

/// What a queued push sends, stored as the queue's opaque `content`: the APNs payload with
/// its headers and/or the FCM v1 message without its target. Both APIs (native and gorush)
/// produce it; the workers read it.
public struct RelayPushContent: Sendable, Hashable, Codable {
    public struct APNs: Sendable, Hashable, Codable {
        /// The payload JSON, minified.
        public var payload: String
        public var pushType: APNsPushType?
        public var priority: Int?
        public var expiration: Int?
        public var collapseID: String?
        /// Full `apns-topic`; nil takes the app's bundle id (plus the push type's suffix).
        public var topic: String?
        /// `apns-id` as the client gave it (gorush's `apns_id`).
        public var apnsID: String?
        /// Send `apns-priority` and `apns-id` only when given (the gorush API: gorush's APNs
        /// client adds neither). Nil (older queued content, the native API): the defaults are sent.
        public var onlyGivenHeaders: Bool?
        /// Sent as given even if the catalog would refuse it (gorush compatibility keeps
        /// gorush's own checks only); the native API always validates.
        public init(payload: String, pushType: APNsPushType? = nil, priority: Int? = nil, expiration: Int? = nil,
                    collapseID: String? = nil, topic: String? = nil, apnsID: String? = nil, onlyGivenHeaders: Bool? = nil) {
            self.apnsID = apnsID
            self.onlyGivenHeaders = onlyGivenHeaders
            self.payload = payload
            self.pushType = pushType
            self.priority = priority
            self.expiration = expiration
            self.collapseID = collapseID
            self.topic = topic
        }
    }

    public struct FCM: Sendable, Hashable, Codable {
        /// The message object without `token`/`topic`/`condition`, minified.
        public var message: String
        public init(message: String) { self.message = message }
    }

    public var apns: APNs?
    public var fcm: FCM?

    public init(apns: APNs? = nil, fcm: FCM? = nil) {
        self.apns = apns
        self.fcm = fcm
    }

    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array((try? encoder.encode(self)) ?? Data())
    }

    public static func decode(_ bytes: [UInt8]) -> RelayPushContent? {
        try? JSONDecoder().decode(RelayPushContent.self, from: Data(bytes))
    }
}
