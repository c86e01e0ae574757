import Foundation

/// One event queued in the host app's event pipeline (docs/specs/device-side.md §3: the CDP `track` call
/// that the SDK batches to `/v1/b`). Values are captured when the event is queued: a recovered
/// `delivered` event keeps its original timestamp (§4), an `opened` event gets the tap time.
public struct PipelineEvent: Sendable, Hashable, Codable {
    /// Unique per event; the collector deduplicates on it.
    public var messageId: String
    /// The CDP event name, `Report Delivery Event` for push metrics.
    public var event: String
    /// String properties, e.g. `metric`, `deliveryId`, `recipient`.
    public var properties: [String: String]
    public var timestamp: Date
    public var anonymousId: String
    /// The identified profile, when the app has identified one.
    public var userId: String?

    public init(messageId: String = UUID().uuidString, event: String, properties: [String: String],
                timestamp: Date, anonymousId: String, userId: String? = nil) {
        self.messageId = messageId
        self.event = event
        self.properties = properties
        self.timestamp = timestamp
        self.anonymousId = anonymousId
        self.userId = userId
    }
}

/// The push metrics the SDK reports (docs/specs/device-side.md §3).
public enum DeliveryMetric: String, Sendable, Hashable, Codable, CaseIterable {
    case delivered
    case opened
}

/// Who the app is on this device: the SDK's anonymous id and the identified user, if any.
public struct PipelineIdentity: Sendable, Hashable, Codable {
    public var anonymousId: String
    public var userId: String?
    public init(anonymousId: String, userId: String? = nil) {
        self.anonymousId = anonymousId
        self.userId = userId
    }
}

extension PipelineEvent {
    /// The CDP event name of every push metric (docs/specs/device-side.md §3).
    public static let reportDeliveryEvent = "Report Delivery Event"

    /// A push metric event: `delivered` (recovered from the App Group store, original timestamp)
    /// or `opened` (at tap). `recipient` is the device token the push was sent to.
    public static func deliveryMetric(_ metric: DeliveryMetric, deliveryID: String, recipient: String,
                                      timestamp: Date, identity: PipelineIdentity,
                                      messageId: String = UUID().uuidString) -> PipelineEvent {
        PipelineEvent(messageId: messageId, event: reportDeliveryEvent,
                      properties: ["metric": metric.rawValue, "deliveryId": deliveryID, "recipient": recipient],
                      timestamp: timestamp, anonymousId: identity.anonymousId, userId: identity.userId)
    }

    /// The metric this event reports, when it is a push metric.
    public var deliveryMetric: DeliveryMetric? {
        guard event == Self.reportDeliveryEvent, let raw = properties["metric"] else { return nil }
        return DeliveryMetric(rawValue: raw)
    }
}

/// ISO 8601 with milliseconds in UTC, the CDP timestamp format (§4: "ISO 8601 with
/// milliseconds"). Formatted by hand: `ISO8601DateFormatter` is not `Sendable`.
public enum PipelineTimestamp {
    public static func string(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = millis.quotientAndRemainder(dividingBy: 1000)
        var secs = seconds.quotient
        var ms = seconds.remainder
        if ms < 0 { secs -= 1; ms += 1000 }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                        from: Date(timeIntervalSince1970: TimeInterval(secs)))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!, Int(ms))
    }
}
