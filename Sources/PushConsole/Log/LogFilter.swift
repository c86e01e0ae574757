import Foundation

/// Which pushes a page of the log shows.
public struct LogFilter: Sendable, Equatable {
    public enum Outcome: String, Sendable { case accepted, rejected }
    /// Matched (case-insensitively, as a substring) against the device token, the device name,
    /// the apns-id / FCM name, the apns-unique-id, the delivery id, the reason, the app and the
    /// relay's push id.
    public var query: String?
    public var platform: LoggedPush.Platform?
    public var outcome: Outcome?

    public init(query: String? = nil, platform: LoggedPush.Platform? = nil, outcome: Outcome? = nil) {
        self.query = query.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        self.platform = platform
        self.outcome = outcome
    }

    public var isEmpty: Bool { query == nil && platform == nil && outcome == nil }

    public func matches(_ push: LoggedPush) -> Bool {
        if let platform, push.platform != platform { return false }
        if let outcome, push.accepted != (outcome == .accepted) { return false }
        guard let query else { return true }
        for field in [push.target, push.device, push.messageID, push.uniqueID, push.deliveryID, push.reason, push.app, push.relayPushID] {
            if let field, field.lowercased().contains(query) { return true }
        }
        return false
    }
}
