import Foundation
import PushHTTP

/// Builds the upload requests of the event pipeline (docs/specs/device-side.md §3). Pure: no I/O, so the
/// dry run of `pushlab open --no-metrics` shows exactly what a flush would send.
enum EventPipelineRequests {
    /// One `/v1/b` item. Keys as in §3; `userId` is omitted when the app has not identified anyone.
    struct BatchItem: Encodable {
        var type = "track"
        var event: String
        var properties: [String: String]
        var anonymousId: String
        var userId: String?
        var timestamp: String
        var messageId: String
    }

    struct BatchEnvelope: Encodable {
        var batch: [BatchItem]
        var sentAt: String
        var writeKey: String
    }

    /// The legacy `/push/events` body: `{"delivery_id","device_id","event","timestamp":<unix s>}`.
    struct LegacyBody: Encodable {
        var delivery_id: String
        var device_id: String
        var event: String
        var timestamp: Int64
    }

    static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    static func item(_ event: PipelineEvent) -> BatchItem {
        BatchItem(event: event.event, properties: event.properties, anonymousId: event.anonymousId,
                  userId: event.userId, timestamp: PipelineTimestamp.string(event.timestamp), messageId: event.messageId)
    }

    /// Splits `events` into batches whose bodies stay under `maxBytes` (one oversized event still
    /// goes alone, so nothing is silently held back forever).
    static func batches(_ events: [PipelineEvent], maxBytes: Int) -> [[PipelineEvent]] {
        let enc = encoder()
        let envelopeOverhead = 128
        var out: [[PipelineEvent]] = []
        var current: [PipelineEvent] = []
        var size = envelopeOverhead
        for event in events {
            let itemSize = ((try? enc.encode(item(event)).count) ?? 256) + 1
            if !current.isEmpty && size + itemSize > maxBytes {
                out.append(current)
                current = []
                size = envelopeOverhead
            }
            current.append(event)
            size += itemSize
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    static func batchRequest(_ events: [PipelineEvent], url: String, writeKey: String, sentAt: Date,
                             configuration: EventPipelineConfiguration) -> HTTPRequest {
        let envelope = BatchEnvelope(batch: events.map(item), sentAt: PipelineTimestamp.string(sentAt), writeKey: writeKey)
        let body = (try? encoder().encode(envelope)) ?? Data()
        return HTTPRequest(method: "POST", url: url, headers: [
            "content-type": "application/json; charset=utf-8",
            "authorization": MetricsEndpoint.basic(user: writeKey, password: ""),
            "user-agent": configuration.userAgent,
        ], body: Array(body), timeout: configuration.requestTimeout)
    }

    /// Nil when the event is not a push metric (legacy SDKs had no other event).
    static func legacyRequest(_ event: PipelineEvent, url: String, siteID: String, apiKey: String,
                              configuration: EventPipelineConfiguration) -> HTTPRequest? {
        guard let metric = event.deliveryMetric, let deliveryID = event.properties["deliveryId"] else { return nil }
        let body = LegacyBody(delivery_id: deliveryID, device_id: event.properties["recipient"] ?? "",
                              event: metric.rawValue, timestamp: Int64(event.timestamp.timeIntervalSince1970.rounded(.down)))
        let data = (try? encoder().encode(body)) ?? Data()
        return HTTPRequest(method: "POST", url: url, headers: [
            "content-type": "application/json; charset=utf-8",
            "authorization": MetricsEndpoint.basic(user: siteID, password: apiKey),
            "user-agent": configuration.userAgent,
        ], body: Array(data), timeout: configuration.requestTimeout)
    }

    static func summary(_ request: HTTPRequest) -> HTTPRequestSummary {
        let headers = request.headers.map { field -> [String] in
            if field.name.lowercased() == "authorization" {
                let scheme = field.value.split(separator: " ").first.map(String.init) ?? ""
                return [field.name, "\(scheme) <redacted>"]
            }
            return [field.name, field.value]
        }
        return HTTPRequestSummary(method: request.method, url: request.url, headers: headers,
                                  body: String(decoding: request.body, as: UTF8.self))
    }
}
