import Foundation

public struct FCMMessage: Sendable, Hashable {
    public struct Notification: Sendable, Hashable {
        public var title: String?
        public var body: String?
        public var image: String?
        public init(title: String? = nil, body: String? = nil, image: String? = nil) {
            self.title = title
            self.body = body
            self.image = image
        }
    }

    public var target: FCMTarget
    public var notification: Notification?
    /// `data`, in order; every value a string.
    public var data: [(key: String, value: String)]
    /// `apns.headers`, in order; every value a string.
    public var apnsHeaders: [(name: String, value: String)]
    /// `apns.payload`: what FCM hands to APNs for iOS (where `CIO.push` goes).
    public var apnsPayload: JSONValue?
    /// `apns.fcm_options.image`.
    public var apnsImage: String?
    /// `apns.live_activity_token`: the ActivityKit push-to-start token (start) or the activity's
    /// push token (update, end); `token` stays the app's FCM registration token (docs/specs/fcm.md
    /// "Live Activities through FCM").
    public var liveActivityToken: String?
    public var android: JSONValue?
    public var webpush: JSONValue?
    public var analyticsLabel: String?

    public init(target: FCMTarget, notification: Notification? = nil, data: [(key: String, value: String)] = [],
                apnsHeaders: [(name: String, value: String)] = [], apnsPayload: JSONValue? = nil, apnsImage: String? = nil,
                android: JSONValue? = nil, webpush: JSONValue? = nil, analyticsLabel: String? = nil,
                liveActivityToken: String? = nil) {
        self.target = target
        self.notification = notification
        self.data = data
        self.apnsHeaders = apnsHeaders
        self.apnsPayload = apnsPayload
        self.apnsImage = apnsImage
        self.android = android
        self.webpush = webpush
        self.analyticsLabel = analyticsLabel
        self.liveActivityToken = liveActivityToken
    }

    public init?(json: JSONValue) {
        guard let m = json.objectValue else { return nil }
        guard let t = FCMTarget.fieldNames.lazy.compactMap({ key in m[key]?.stringValue.flatMap { FCMTarget(field: key, value: $0) } }).first
        else { return nil }
        target = t
        if let n = m["notification"]?.objectValue {
            notification = Notification(title: n["title"]?.stringValue, body: n["body"]?.stringValue, image: n["image"]?.stringValue)
        }
        data = (m["data"]?.objectValue?.members ?? []).compactMap { mem in mem.value.stringValue.map { (mem.key, $0) } }
        let apns = m["apns"]?.objectValue
        apnsHeaders = (apns?["headers"]?.objectValue?.members ?? []).compactMap { mem in mem.value.stringValue.map { (mem.key, $0) } }
        apnsPayload = apns?["payload"]
        apnsImage = apns?["fcm_options"]?["image"]?.stringValue
        liveActivityToken = apns?["live_activity_token"]?.stringValue
        android = m["android"]
        webpush = m["webpush"]
        analyticsLabel = m["fcm_options"]?["analytics_label"]?.stringValue
    }

    public var json: JSONValue {
        var o = JSONObject()
        o[target.fieldName] = .string(target.value)
        if let n = notification {
            var no = JSONObject()
            if let t = n.title { no["title"] = .string(t) }
            if let b = n.body { no["body"] = .string(b) }
            if let i = n.image { no["image"] = .string(i) }
            o["notification"] = .object(no)
        }
        if !data.isEmpty { o["data"] = .object(JSONObject(data.map { JSONMember(key: $0.key, value: .string($0.value)) })) }
        if !apnsHeaders.isEmpty || apnsPayload != nil || apnsImage != nil || liveActivityToken != nil {
            var a = JSONObject()
            if !apnsHeaders.isEmpty { a["headers"] = .object(JSONObject(apnsHeaders.map { JSONMember(key: $0.name, value: .string($0.value)) })) }
            if let apnsPayload { a["payload"] = apnsPayload }
            if let apnsImage { a["fcm_options"] = ["image": .string(apnsImage)] }
            if let liveActivityToken { a["live_activity_token"] = .string(liveActivityToken) }
            o["apns"] = .object(a)
        }
        if let android { o["android"] = android }
        if let webpush { o["webpush"] = webpush }
        if let analyticsLabel { o["fcm_options"] = ["analytics_label": .string(analyticsLabel)] }
        return .object(o)
    }

    public static func == (a: FCMMessage, b: FCMMessage) -> Bool { a.json == b.json }
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }
}
