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

/// Checks a metric request body against the shapes of docs/specs/device-side.md §3, in a fixed order,
/// and returns its metrics or the first `MetricRejection`. Pure: no I/O, no clock.
public enum MetricRequestParser {
    /// The one CDP event name that carries push metrics.
    public static let deliveryEvent = "Report Delivery Event"

    public static func parse(route: CIOMetricRoute, body: [UInt8]) throws(MetricRejection) -> ParsedMetricRequest {
        let json = try IngestJSON.parse(body)
        switch route {
        case .track:
            let reader = try FieldReader(json, pointer: "")
            let event = try reader.string("event", "the event name, \"\(deliveryEvent)\"")
            guard event == deliveryEvent else {
                throw .unknownEvent(pointer: "/event", value: event, allowed: [deliveryEvent])
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
    static func batch(_ json: JSONValue) throws(MetricRejection) -> ParsedMetricRequest {
        let reader = try FieldReader(json, pointer: "")
        let writeKey = try reader.optionalString("writeKey")
        guard let list = reader.value("batch") else { throw .missingField(pointer: "/batch", expected: "an array of events") }
        guard case .array(let items) = list else {
            throw .wrongType(pointer: "/batch", expected: "an array, not \(IngestJSON.typeName(list))")
        }
        guard !items.isEmpty else { throw .emptyBatch }
        var metrics: [ReportedMetric] = []
        var ignored = 0
        for (i, item) in items.enumerated() {
            let itemReader = try FieldReader(item, pointer: "/batch/\(i)")
            let type = try itemReader.string("type", "the event type, e.g. \"track\"")
            // The host app's pipeline carries all of its analytics events; only delivery
            // metrics are ours to store.
            guard type == "track", try itemReader.optionalString("event") == deliveryEvent else {
                if type == "track" { _ = try itemReader.string("event", "the event name") }
                ignored += 1
                continue
            }
            metrics.append(try cdpMetric(itemReader, route: .batch, batchIndex: i))
        }
        return ParsedMetricRequest(metrics: metrics, ignoredEvents: ignored, writeKey: writeKey)
    }

    /// The CDP track shape shared by `/v1/track` and `/v1/b` items.
    static func cdpMetric(_ reader: FieldReader, route: CIOMetricRoute, batchIndex: Int?) throws(MetricRejection) -> ReportedMetric {
        let properties = try reader.reader("properties", "an object with metric, deliveryId, recipient")
        let metricText = try properties.string("metric", "delivered, opened, converted or clicked")
        guard let metric = CIOMetric(rawValue: metricText) else {
            throw .unknownMetric(pointer: properties.at("metric"), value: metricText)
        }
        let deliveryID = try properties.string("deliveryId", "the push's CIO-Delivery-ID")
        guard isWellFormedDeliveryID(deliveryID) else {
            throw .malformedDeliveryID(pointer: properties.at("deliveryId"), value: deliveryID)
        }
        // The delivery token may be empty (docs/specs/device-side.md §1: empty strings still count).
        let recipient = try properties.string("recipient", "the push's CIO-Delivery-Token")
        if try reader.optionalString("anonymousId") == nil, try reader.optionalString("userId") == nil {
            throw .missingField(pointer: reader.at("anonymousId"), expected: "anonymousId or userId: a track call needs one")
        }
        var timestamp: Date?
        let timestampText = try reader.optionalString("timestamp")
        if let timestampText {
            guard let t = ISO8601Timestamp.parse(timestampText) else {
                throw .malformedTimestamp(pointer: reader.at("timestamp"), value: timestampText,
                                          expected: "ISO 8601 like 2026-04-02T10:46:08.123Z")
            }
            timestamp = t
        }
        return ReportedMetric(route: route, deliveryID: deliveryID, metric: metric, recipient: recipient,
                              originalTimestamp: timestamp, originalTimestampText: timestampText, batchIndex: batchIndex)
    }

    /// Legacy `/push/events`: `{"delivery_id","device_id","event","timestamp": <unix s>}`.
    static func legacy(_ json: JSONValue) throws(MetricRejection) -> ReportedMetric {
        let reader = try FieldReader(json, pointer: "")
        let deliveryID = try reader.string("delivery_id", "the push's CIO-Delivery-ID")
        guard isWellFormedDeliveryID(deliveryID) else { throw .malformedDeliveryID(pointer: "/delivery_id", value: deliveryID) }
        let eventText = try reader.string("event", "delivered, opened or converted")
        guard let metric = CIOMetric(rawValue: eventText) else {
            throw .unknownEvent(pointer: "/event", value: eventText, allowed: CIOMetric.allCases.map(\.rawValue))
        }
        let device = try reader.string("device_id", "the device token")
        var timestamp: Date?
        var timestampText: String?
        switch reader.value("timestamp") {
        case nil:
            break
        case .number(let n)? where n.doubleValue.isFinite && n.doubleValue >= 0:
            timestamp = Date(timeIntervalSince1970: n.doubleValue)
            timestampText = n.text
        case let other?:
            let shown: String = { if case .string(let s) = other { return s } else { return IngestJSON.typeName(other) } }()
            throw .malformedTimestamp(pointer: "/timestamp", value: shown, expected: "Unix seconds as a number, e.g. 1775126768")
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

/// ISO 8601 date-times as the SDKs write them: `2026-04-02T10:46:08Z`,
/// `2026-04-02T10:46:08.123Z`, or with a `±HH:MM` offset. Parsed by hand (no formatter
/// object to share between threads).
public enum ISO8601Timestamp {
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= b.count else { return nil }
            var v = 0
            for i in at..<(at + n) {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard b.count >= 20, let year = digits(0, 4), b[4] == 0x2D, let month = digits(5, 2), b[7] == 0x2D,
              let day = digits(8, 2), b[10] == 0x54 || b[10] == 0x74, let hour = digits(11, 2), b[13] == 0x3A,
              let minute = digits(14, 2), b[16] == 0x3A, let second = digits(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var i = 19
        var fraction = 0.0
        if i < b.count, b[i] == 0x2E {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 {
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D, let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 0x3A,
                  let om = digits(i + 4, 2) {
            offset = (oh * 3600 + om * 60) * (b[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's civil algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `2026-04-02T10:46:08.123Z` (UTC, milliseconds).
    public static func format(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let totalSeconds = Int(ms.quotientAndRemainder(dividingBy: 1000).quotient) - (ms < 0 && ms % 1000 != 0 ? 1 : 0)
        let millis = Int(ms - Int64(totalSeconds) * 1000)
        var days = totalSeconds / 86_400
        var rem = totalSeconds % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        // Inverse of daysFromCivil.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int, _ n: Int) -> String { String(repeating: "0", count: max(0, n - String(v).count)) + String(v) }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rem / 3600, 2)):\(pad(rem % 3600 / 60, 2)):\(pad(rem % 60, 2)).\(pad(millis, 3))Z"
    }
}
