import Foundation
import PushCore

/// One line of the extension's timeline: emulated milliseconds since the push arrived.
public struct NSETimelineEntry: Sendable, Codable, Equatable {
    public var tMs: Int64
    public var event: String
}

/// The notification as iOS shows it.
public struct DisplayedNotification: Sendable, Codable, Equatable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var sound: String?
    public var badge: Int?
    public var attachments: [RichPushAttachment]
    /// The whole payload, as `request.content.userInfo`.
    public var userInfo: EncodableJSON
}

/// What happened to `CIO.push.image`.
public struct ImageReport: Sendable, Codable, Equatable {
    public enum Verdict: String, Sendable, Codable {
        case attached, dropped
        /// The push names no image.
        case none
    }
    public var url: String?
    public var verdict: Verdict
    public var code: String?
    public var reason: String?
    public var fix: String?
    public var warnings: [String]
    public var redirectChain: [String]
    public var status: Int?
    public var bytes: Int?

    public static let noImage = ImageReport(url: nil, verdict: .none, warnings: [], redirectChain: [])

    static func dropped(_ url: String?, _ reason: ImageDropReason, chain: [String] = [], status: Int? = nil) -> ImageReport {
        ImageReport(url: url, verdict: .dropped, code: reason.code, reason: reason.reason, fix: reason.fix,
                    warnings: [], redirectChain: chain, status: status)
    }
}

/// What became of the pending `delivered` row in the App Group store.
public struct PendingRowReport: Sendable, Codable, Equatable {
    public var store: AppGroupStoreKind
    public var id: UUID?
    public var stored: Bool
    /// Removed after the metric was acknowledged.
    public var removed: Bool
    /// Why nothing was stored (store off, wrong App Group, duplicate, write failure).
    public var note: String?
    /// Older rows the store's cap dropped to make room for this one (nil: none).
    public var droppedOldest: Int? = nil
}

/// Everything one NSE run did, for `pushlab nse` and the simulator.
public struct NSERunReport: Sendable, Codable, Equatable {
    public enum Delivered: String, Sendable, Codable {
        /// The extension's content with the image attached.
        case rich
        /// The push's own content: no image attached (none named, dropped, not ready at expiry,
        /// the extension died, or did not run).
        case original
        /// No alert to show (a silent push).
        case nothing
    }
    public var sdkMode: SDKMode
    public var budgetMs: Int64
    /// iOS ran the extension (`mutable-content: 1` and an alert).
    public var extensionRan: Bool
    /// The SDK handled the push (a Customer.io push); false leaves the content to the app.
    public var handled: Bool
    /// The budget ran out before the extension delivered (`serviceExtensionTimeWillExpire`).
    public var expired: Bool
    /// The process was killed (`--kill-at`) before it delivered.
    public var killed: Bool
    /// How often the SDK called the content handler (must be 0 or 1).
    public var contentHandlerCalls: Int
    public var contentDeliveredAtMs: Int64?
    public var delivered: Delivered
    public var deliveryID: String?
    public var notification: DisplayedNotification?
    public var image: ImageReport
    public var metric: DeliveredMetricOutcome
    public var pendingRow: PendingRowReport
    public var timeline: [NSETimelineEntry]
    /// Why the extension did not run or did not handle the push.
    public var note: String?
}

/// Encodes a PushCore `JSONValue` (numbers as written when they fit a Double or Int).
public struct EncodableJSON: Sendable, Codable, Equatable {
    public var value: JSONValue
    public init(_ value: JSONValue) { self.value = value }

    public func encode(to encoder: Encoder) throws {
        switch value {
        case .null:
            var c = encoder.singleValueContainer(); try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer(); try c.encode(b)
        case .string(let s):
            var c = encoder.singleValueContainer(); try c.encode(s)
        case .number(let n):
            var c = encoder.singleValueContainer()
            if let i = n.intValue { try c.encode(i) } else { try c.encode(n.doubleValue) }
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for element in a.elements { try c.encode(EncodableJSON(element)) }
        case .object(let o):
            var c = encoder.container(keyedBy: Key.self)
            for member in o.members { try c.encode(EncodableJSON(member.value), forKey: Key(member.key)) }
        }
    }

    public init(from decoder: Decoder) throws {
        if let c = try? decoder.container(keyedBy: Key.self) {
            value = .object(JSONObject(try c.allKeys.map { JSONMember(key: $0.stringValue, value: try c.decode(EncodableJSON.self, forKey: $0).value) }))
        } else if var c = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !c.isAtEnd { items.append(try c.decode(EncodableJSON.self).value) }
            value = .array(JSONArray(items))
        } else {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { value = .null }
            else if let b = try? c.decode(Bool.self) { value = .bool(b) }
            else if let i = try? c.decode(Int.self) { value = .number(JSONNumber(i)) }
            else if let d = try? c.decode(Double.self) { value = .number(JSONNumber(d)) }
            else { value = .string(try c.decode(String.self)) }
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
