import Foundation
import PushCore

/// Firebase's three message kinds (docs/specs/android-side.md §1).
public enum AndroidMessageType: String, Sendable, Codable, CaseIterable {
    case notification
    case data
    /// A notification with a data payload.
    case both
}

/// What the phone receives of an FCM v1 message: `message.data` (or `android.data`, which
/// overrides it), the notification part (`android.notification` fields win over
/// `notification`), and the Android priority.
public struct AndroidMessage: Sendable, Equatable {
    public var data: [(key: String, value: String)]
    public var notificationTitle: String?
    public var notificationBody: String?
    public var notificationImage: String?
    public var hasNotification: Bool
    public var channelID: String?
    public var clickAction: String?
    /// `android.notification.link` / `notification` link (used by the tray path only).
    public var notificationLink: String?
    public var highPriority: Bool

    public init(data: [(key: String, value: String)] = [], notificationTitle: String? = nil, notificationBody: String? = nil,
                notificationImage: String? = nil, hasNotification: Bool = false, channelID: String? = nil, clickAction: String? = nil,
                notificationLink: String? = nil, highPriority: Bool = true) {
        self.data = data
        self.notificationTitle = notificationTitle
        self.notificationBody = notificationBody
        self.notificationImage = notificationImage
        self.hasNotification = hasNotification
        self.channelID = channelID
        self.clickAction = clickAction
        self.notificationLink = notificationLink
        self.highPriority = highPriority
    }

    public static func == (a: AndroidMessage, b: AndroidMessage) -> Bool {
        a.data.map { "\($0.key)=\($0.value)" } == b.data.map { "\($0.key)=\($0.value)" } && a.notificationTitle == b.notificationTitle
            && a.notificationBody == b.notificationBody && a.notificationImage == b.notificationImage && a.hasNotification == b.hasNotification
            && a.channelID == b.channelID && a.clickAction == b.clickAction && a.highPriority == b.highPriority
    }

    public var type: AndroidMessageType {
        if hasNotification { return data.isEmpty ? .notification : .both }
        return .data
    }

    public func dataValue(_ key: String) -> String? { data.first { $0.key == key }?.value }

    public var deliveryID: String? { dataValue(AndroidSDKContract.deliveryIDKey) }
    public var deliveryToken: String? { dataValue(AndroidSDKContract.deliveryTokenKey) }
    /// Both delivery keys present: a Customer.io push (`PushTrackingUtil`).
    public var isCustomerIOPush: Bool { deliveryID != nil && deliveryToken != nil }

    /// Reads `{"message": {…}}`, a bare message object, or an FCM `android` block with `data`.
    /// Errors name the JSON pointer.
    public static func parse(_ root: JSONValue) throws(AndroidMessageError) -> AndroidMessage {
        guard case .object = root else { throw .notAnObject(pointer: "", got: root.typeName) }
        let (message, base): (JSONValue, String) = root["message"].map { ($0, "/message") } ?? (root, "")
        guard case .object = message else { throw .notAnObject(pointer: base, got: message.typeName) }
        var result = AndroidMessage()
        func strings(_ v: JSONValue?, _ pointer: String) throws(AndroidMessageError) -> [(key: String, value: String)]? {
            guard let v else { return nil }
            guard let o = v.objectValue else { throw .notAnObject(pointer: pointer, got: v.typeName) }
            var out: [(key: String, value: String)] = []
            for m in o.members {
                guard let s = m.value.stringValue else { throw .notAString(pointer: pointer + "/" + m.key, got: m.value.typeName) }
                out.append((m.key, s))
            }
            return out
        }
        let android = message["android"]
        if let a = android, a.objectValue == nil { throw .notAnObject(pointer: base + "/android", got: a.typeName) }
        if let androidData = try strings(android?["data"], base + "/android/data") {
            result.data = androidData
        } else {
            result.data = try strings(message["data"], base + "/data") ?? []
        }
        let n = message["notification"]
        if let n, n.objectValue == nil { throw .notAnObject(pointer: base + "/notification", got: n.typeName) }
        let an = android?["notification"]
        if let an, an.objectValue == nil { throw .notAnObject(pointer: base + "/android/notification", got: an.typeName) }
        result.hasNotification = n != nil || an != nil
        result.notificationTitle = an?["title"]?.stringValue ?? n?["title"]?.stringValue
        result.notificationBody = an?["body"]?.stringValue ?? n?["body"]?.stringValue
        result.notificationImage = an?["image"]?.stringValue ?? n?["image"]?.stringValue
        result.channelID = an?["channel_id"]?.stringValue
        result.clickAction = an?["click_action"]?.stringValue
        result.notificationLink = android?["fcm_options"]?["link"]?.stringValue
        if let p = android?["priority"] {
            guard let s = p.stringValue, ["high", "normal", "HIGH", "NORMAL"].contains(s) else {
                throw .badValue(pointer: base + "/android/priority", detail: "must be \"high\" or \"normal\"")
            }
            result.highPriority = s.lowercased() == "high"
        } else {
            // FCM v1 sends data messages at normal priority and notification messages at high.
            result.highPriority = result.hasNotification
        }
        return result
    }
}

/// Why a message file cannot be received, with the pointer and a fix.
public enum AndroidMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAnObject(pointer: String, got: String)
    case notAString(pointer: String, got: String)
    case badValue(pointer: String, detail: String)

    public var description: String {
        switch self {
        case .notAnObject(let p, let got): return "\(p.isEmpty ? "/" : p): expected a JSON object, got \(got)"
        case .notAString(let p, let got): return "\(p): FCM data values must be strings, got \(got) (fix: quote the value)"
        case .badValue(let p, let detail): return "\(p): \(detail)"
        }
    }
}
