import Foundation
import PushCore

/// What one accepted request carried.
public struct ParsedMetricRequest: Sendable, Equatable {
    public var metrics: [ReportedMetric]
    /// `/v1/b` items that are not delivery metrics (other app events of the host app's
    /// pipeline): accepted, counted, not stored as metrics.
    public var ignoredEvents: Int
    /// `writeKey` of a `/v1/b` envelope (its credentials when no Authorization header is sent).
    public var writeKey: String?
}

/// Checks a metric request body against the shapes of docs/specs/device-side.md §3 (the bodies
/// `CIOMetricBody` writes, read with its key names), in a fixed order, and returns its metrics or
/// the first `MetricRejection`. Pure: no I/O, no clock.
public enum MetricRequestParser {
    typealias Track = CIOMetricBody.TrackKey
    typealias Legacy = CIOMetricBody.LegacyKey
    static let deliveryEvent = CIOMetricBody.deliveryEvent

    public static func parse(route: CIOMetricRoute, body: [UInt8]) throws(MetricRejection) -> ParsedMetricRequest {
        try parse(route: route, body: body, pruned: true)
    }

    /// `pruned: false` builds the whole document (the reference the index is tested against).
    static func parse(route: CIOMetricRoute, body: [UInt8], pruned: Bool) throws(MetricRejection) -> ParsedMetricRequest {
        try IngestJSON.requireContent(body)
        if pruned, let root = IngestJSON.index(body) {
            return try check(route: route, root)
        }
        // Not JSON (the parser's own error), or the reference.
        return try check(route: route, IngestJSON.parse(body))
    }

    static func check(route: CIOMetricRoute, _ json: some IngestValue) throws(MetricRejection) -> ParsedMetricRequest {
        switch route {
        case .track:
            let reader = try FieldReader(json, pointer: "")
            guard try reader.string(Track.event, is: deliveryEvent, "the event name, \"\(deliveryEvent)\"") else {
                throw .unknownEvent(pointer: reader.at(Track.event), value: try reader.string(Track.event, ""), allowed: [deliveryEvent])
            }
            return ParsedMetricRequest(metrics: [try cdpMetric(reader, route: .track, batchIndex: nil)], ignoredEvents: 0, writeKey: nil)
        case .batch:
            return try batch(json)
        case .legacyEvents:
            return ParsedMetricRequest(metrics: [try legacy(json)], ignoredEvents: 0, writeKey: nil)
        }
    }

    /// `/v1/b`: `{"batch": [items], "sentAt": …, "writeKey": …}`. Every item is checked
    /// before any is accepted (all or nothing, so a 400 never half-stores a batch).
    static func batch(_ json: some IngestValue) throws(MetricRejection) -> ParsedMetricRequest {
        let reader = try FieldReader(json, pointer: "")
        let writeKey = try reader.optionalString(CIOMetricBody.BatchKey.writeKey)
        guard let list = reader.value(CIOMetricBody.BatchKey.batch) else { throw .missingField(pointer: reader.at(CIOMetricBody.BatchKey.batch), expected: "an array of events") }
        guard let items = list.elements else {
            throw .wrongType(pointer: reader.at(CIOMetricBody.BatchKey.batch), expected: "an array, not \(IngestJSON.typeName(list))")
        }
        guard !items.isEmpty else { throw .emptyBatch }
        var metrics: [ReportedMetric] = []
        var ignored = 0
        for (i, item) in items.enumerated() {
            let itemReader = try reader.child(item, .member(CIOMetricBody.BatchKey.batch), .index(i))
            let isTrack = try itemReader.string(Track.type, is: "track", "the event type, e.g. \"track\"")
            // The host app's pipeline carries all of its analytics events; only delivery
            // metrics are ours to store.
            guard isTrack, try itemReader.optionalString(Track.event, is: deliveryEvent) else {
                if isTrack { _ = try itemReader.string(Track.event, "the event name") }
                ignored += 1
                continue
            }
            metrics.append(try cdpMetric(itemReader, route: .batch, batchIndex: i))
        }
        return ParsedMetricRequest(metrics: metrics, ignoredEvents: ignored, writeKey: writeKey)
    }

    /// The CDP track shape shared by `/v1/track` and `/v1/b` items.
    static func cdpMetric(_ reader: FieldReader<some IngestValue>, route: CIOMetricRoute, batchIndex: Int?) throws(MetricRejection) -> ReportedMetric {
        let properties = try reader.reader(Track.properties, "an object with metric, deliveryId, recipient")
        let metricText = try properties.string(Track.metric, "delivered, opened, converted or clicked")
        guard let metric = CIOMetric(rawValue: metricText) else {
            throw .unknownMetric(pointer: properties.at(Track.metric), value: metricText)
        }
        let deliveryID = try properties.string(Track.deliveryId, "the push's CIO-Delivery-ID")
        guard isWellFormedDeliveryID(deliveryID) else {
            throw .malformedDeliveryID(pointer: properties.at(Track.deliveryId), value: deliveryID)
        }
        // The delivery token may be empty (docs/specs/device-side.md §1: empty strings still count).
        let recipient = try properties.string(Track.recipient, "the push's CIO-Delivery-Token")
        if try !reader.hasString(Track.anonymousId), try !reader.hasString(Track.userId) {
            throw .missingField(pointer: reader.at(Track.anonymousId), expected: "anonymousId or userId: a track call needs one")
        }
        var timestamp: Date?
        let timestampText = try reader.optionalString(Track.timestamp)
        if let timestampText {
            guard let t = ISO8601Timestamp.parse(timestampText) else {
                throw .malformedTimestamp(pointer: reader.at(Track.timestamp), value: timestampText,
                                          expected: "ISO 8601 like 2026-04-02T10:46:08.123Z")
            }
            timestamp = t
        }
        return ReportedMetric(route: route, deliveryID: deliveryID, metric: metric, recipient: recipient,
                              originalTimestamp: timestamp, originalTimestampText: timestampText, batchIndex: batchIndex)
    }

    /// Legacy `/push/events`: `{"delivery_id","device_id","event","timestamp": <unix s>}`.
    static func legacy(_ json: some IngestValue) throws(MetricRejection) -> ReportedMetric {
        let reader = try FieldReader(json, pointer: "")
        let deliveryID = try reader.string(Legacy.deliveryID, "the push's CIO-Delivery-ID")
        guard isWellFormedDeliveryID(deliveryID) else { throw .malformedDeliveryID(pointer: reader.at(Legacy.deliveryID), value: deliveryID) }
        let eventText = try reader.string(Legacy.event, "delivered, opened or converted")
        guard let metric = CIOMetric(rawValue: eventText) else {
            throw .unknownEvent(pointer: reader.at(Legacy.event), value: eventText, allowed: CIOMetric.allCases.map(\.rawValue))
        }
        let device = try reader.string(Legacy.deviceID, "the device token")
        var timestamp: Date?
        var timestampText: String?
        if let value = reader.value(Legacy.timestamp) {
            guard let n = value.numberValue, n.doubleValue.isFinite && n.doubleValue >= 0 else {
                let shown = value.stringValue ?? IngestJSON.typeName(value)
                throw .malformedTimestamp(pointer: reader.at(Legacy.timestamp), value: shown, expected: "Unix seconds as a number, e.g. 1775126768")
            }
            timestamp = Date(timeIntervalSince1970: n.doubleValue)
            timestampText = n.text
        }
        return ReportedMetric(route: .legacyEvents, deliveryID: deliveryID, metric: metric, recipient: device,
                              originalTimestamp: timestamp, originalTimestampText: timestampText)
    }

    /// 1–200 characters of `A–Z a–z 0–9 - _ = + / . : ~` (Customer.io delivery ids are
    /// base64-like strings; this also admits UUIDs and test ids, and refuses empty strings,
    /// spaces, control characters and anything that needs escaping).
    public static func isWellFormedDeliveryID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...200).contains(bytes.count) else { return false }
        return bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x2D || b == 0x5F || b == 0x3D || b == 0x2B || b == 0x2F || b == 0x2E || b == 0x3A || b == 0x7E
        }
    }
}
