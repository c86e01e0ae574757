import Foundation

/// Where an FCM message goes: exactly one of fid, token, topic or condition (docs/specs/fcm.md
/// "Message essentials", "`fid` beside `token`, `topic`, `condition`").
public enum FCMTarget: Sendable, Hashable {
    /// A Firebase Installation ID: the target firebase-admin 7.x prefers over `token`.
    case fid(String)
    /// An FCM registration token (deprecated by the Admin SDKs in favour of `fid`).
    case token(String)
    case topic(String)
    case condition(String)

    /// The message fields that name a target, in the order the Admin SDKs list them.
    public static let fieldNames = ["fid", "token", "topic", "condition"]

    /// The target a message field names; nil for a field that is not a target.
    public init?(field: String, value: String) {
        switch field {
        case "fid": self = .fid(value)
        case "token": self = .token(value)
        case "topic": self = .topic(value)
        case "condition": self = .condition(value)
        default: return nil
        }
    }

    public var fieldName: String {
        switch self { case .fid: "fid"; case .token: "token"; case .topic: "topic"; case .condition: "condition" }
    }
    public var value: String {
        switch self { case .fid(let v), .token(let v), .topic(let v), .condition(let v): v }
    }
    /// A target that names one app instance (fid or token), which logs shorten.
    public var isDevice: Bool {
        switch self { case .fid, .token: true; case .topic, .condition: false }
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

    /// The problem with this target and how to fix it, checked before sending; nil when it is fine.
    public var finding: (message: String, fix: String)? {
        switch self {
        case .fid(let f):
            return FirebaseInstallationID.problem(f).map { ($0.message, $0.fix) }
        case .token(let t):
            return DeviceToken.problem(t, for: .fcm).map { ($0.message, $0.fix) }
        case .topic(let t):
            return FCMTarget.isValidTopic(t) ? nil
                : ("topic '\(t)' is not a valid FCM topic name", "use letters, digits and - _ . ~ % only (e.g. news or /topics/news)")
        case .condition(let c):
            return c.trimmingCharacters(in: .whitespaces).isEmpty ? ("the condition is empty", "e.g. \"'news' in topics && 'ios' in topics\"") : nil
        }
    }

    /// `finding` as one line (API answers, logs).
    public var problem: String? { finding.map { "\($0.message); fix: \($0.fix)" } }
}
