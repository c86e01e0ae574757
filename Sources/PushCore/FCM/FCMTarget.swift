import Foundation

/// Where an FCM message goes: exactly one of token, topic or condition (docs/specs/fcm.md).
public enum FCMTarget: Sendable, Hashable {
    case token(String)
    case topic(String)
    case condition(String)

    public var fieldName: String {
        switch self { case .token: "token"; case .topic: "topic"; case .condition: "condition" }
    }
    public var value: String {
        switch self { case .token(let v), .topic(let v), .condition(let v): v }
    }

    /// docs/specs/fcm.md "Send": the message content may be 4096 bytes, 2048 for a topic message.
    public static let contentLimit = 4096
    public static let topicContentLimit = 2048

    /// The largest message content FCM accepts for this target.
    public var contentLimit: Int { if case .topic = self { FCMTarget.topicContentLimit } else { FCMTarget.contentLimit } }

    /// docs/specs/fcm.md: a topic matches `^(/topics/)?[a-zA-Z0-9-_.~%]+$`.
    public static func isValidTopic(_ topic: String) -> Bool {
        let name = topic.hasPrefix("/topics/") ? topic.dropFirst(8) : Substring(topic)
        return !name.isEmpty && name.utf8.allSatisfy { DeviceToken.isURLSafe($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "%") }
    }

    /// The problem with this target, checked before sending; nil when it is fine.
    public var problem: String? {
        switch self {
        case .token(let t):
            return DeviceToken.problem(t, for: .fcm).map { "\($0)" }
        case .topic(let t):
            return FCMTarget.isValidTopic(t) ? nil
                : "topic '\(t)' is not a valid FCM topic name; use letters, digits and - _ . ~ % only (e.g. news or /topics/news)"
        case .condition(let c):
            return c.trimmingCharacters(in: .whitespaces).isEmpty ? "the condition is empty; e.g. \"'news' in topics && 'ios' in topics\"" : nil
        }
    }
}
