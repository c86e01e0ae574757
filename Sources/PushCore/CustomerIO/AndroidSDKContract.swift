import Foundation

/// What the Customer.io Android SDK (`messagingpush`, 4.19.0) puts on the wire and on disk for
/// push metrics (docs/specs/android-side.md §2 and §4). The device emulator builds its
/// requests and its pending store from these; the collector and the tests hold them against
/// the same definitions.
public enum AndroidSDKContract {
    /// The two `data` keys that make a message a Customer.io push (`PushTrackingUtil`).
    public static let deliveryIDKey = "CIO-Delivery-ID"
    public static let deliveryTokenKey = "CIO-Delivery-Token"
    /// The `data` keys the SDK draws from (`CustomerIOPushNotificationHandler`).
    public static let titleKey = "title"
    public static let bodyKey = "body"
    public static let imageKey = "image"
    public static let linkKey = "link"

    /// The in-memory duplicate guard keeps this many recent delivery ids (`PushMessageProcessor`).
    public static let recentDeliveryIDs = 10
    /// The pending store: `<filesDir>/cio_pending_push_delivery.json`, at most 100 entries.
    public static let pendingStoreFileName = "cio_pending_push_delivery.json"
    public static let pendingStoreCapacity = 100

    /// WorkManager's default back-off (EXPONENTIAL from 30 s, capped at 5 h); the SDK sets none.
    public static let workManagerInitialBackoffMs: Int64 = 30_000
    public static let workManagerMaxBackoffMs: Int64 = 5 * 3600 * 1000
    /// `CustomerIOHttpClient`'s connect and read timeouts.
    public static let requestTimeoutMs: Int64 = 10_000

    /// The metric request goes to `https://<apiHost>/track`; apiHost is `cdp.customer.io/v1`
    /// (US) or `cdp-eu.customer.io/v1` (EU) unless the app overrides it: the `/v1/track` route.
    public static let trackRoute = CIOMetricRoute.track
    /// `Client.toString()`: `Android Client/<sdk version>` unless a wrapper sets its own source.
    public static func userAgent(sdkVersion: String, source: String = "Android") -> String { "\(source) Client/\(sdkVersion)" }
    public static let contentType = "application/json; charset=utf-8"

    /// The delivered (or any push) metric body exactly as the SDK sends it: an `org.json`
    /// `JSONObject` filled in the order anonymousId, properties (recipient, metric,
    /// deliveryId), event, printed by Android's `JSONStringer`, which escapes `/` as `\/`.
    public static func metricBody(deliveryID: String, deliveryToken: String, metric: String = CIOMetric.delivered.rawValue) -> [UInt8] {
        typealias Key = CIOMetricBody.TrackKey
        func member(_ key: String, _ value: String) -> String { orgJSONString(key) + ":" + orgJSONString(value) }
        let properties = [member(Key.recipient, deliveryToken), member(Key.metric, metric.lowercased()),
                          member(Key.deliveryId, deliveryID)].joined(separator: ",")
        let out = "{" + member(Key.anonymousId, deliveryID) + "," + orgJSONString(Key.properties) + ":{" + properties + "},"
            + member(Key.event, CIOMetricBody.deliveryEvent) + "}"
        return Array(out.utf8)
    }

    /// pushlab's improved mode: the same body plus `messageId` (`delivered-<delivery id>`) so the
    /// worker and the foreground hand-off can be de-duplicated server-side.
    public static func improvedMetricBody(deliveryID: String, deliveryToken: String) -> [UInt8] {
        var body = metricBody(deliveryID: deliveryID, deliveryToken: deliveryToken)
        body.removeLast()  // the closing brace
        body += Array(("," + orgJSONString(CIOMetricBody.TrackKey.messageId) + ":"
            + orgJSONString(CIOMetricBody.dedupKey(deliveryID: deliveryID)) + "}").utf8)
        return body
    }

    /// One pending-store entry as kotlinx.serialization writes it (default names, no spaces).
    public struct PendingEntry: Sendable, Hashable, Codable {
        public var deliveryId: String
        public var token: String
        public init(deliveryId: String, token: String) {
            self.deliveryId = deliveryId
            self.token = token
        }
    }

    /// The store file's bytes: `[{"deliveryId":"…","token":"…"},…]` in insertion order.
    /// kotlinx's default `Json` escapes `"`, `\` and control characters, not `/`.
    public static func pendingStoreBytes(_ entries: [PendingEntry]) -> [UInt8] {
        let items = entries.map { "{\"deliveryId\":" + jsonString($0.deliveryId, escapeSlash: false) + ",\"token\":" + jsonString($0.token, escapeSlash: false) + "}" }
        return Array(("[" + items.joined(separator: ",") + "]").utf8)
    }

    /// A string literal as Android's `org.json.JSONStringer` prints it.
    public static func orgJSONString(_ s: String) -> String { jsonString(s, escapeSlash: true) }

    static func jsonString(_ s: String, escapeSlash: Bool) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where escapeSlash: out += "\\/"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\u{C}": out += "\\f"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}
