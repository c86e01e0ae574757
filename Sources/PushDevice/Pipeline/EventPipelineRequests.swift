import Foundation
import PushCore
import PushHTTP

/// Builds the upload requests of the event pipeline (docs/specs/device-side.md §3). Pure: no I/O, so the
/// dry run of `pushlab open --no-metrics` shows exactly what a flush would send.
enum EventPipelineRequests {
    /// One `/v1/b` item (docs/specs/device-side.md §3, `CIOMetricBody.batchItem`).
    static func item(_ event: PipelineEvent) -> JSONValue {
        CIOMetricBody.batchItem(event.metric, deliveryID: event.deliveryID, recipient: event.recipient,
                                anonymousId: event.anonymousId, userId: event.userId, timestamp: event.timestamp,
                                messageId: event.messageId)
    }

    /// Splits `events` into batches whose bodies stay under `maxBytes` (one oversized event still
    /// goes alone, so nothing is silently held back forever).
    static func batches(_ events: [PipelineEvent], maxBytes: Int) -> [[PipelineEvent]] {
        let envelopeOverhead = 128
        var out: [[PipelineEvent]] = []
        var current: [PipelineEvent] = []
        var size = envelopeOverhead
        for event in events {
            let itemSize = item(event).minifiedByteCount + 1
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
        let body = CIOMetricBody.batch(events.map(item), sentAt: sentAt, writeKey: writeKey).minifiedBytes()
        return HTTPRequest(method: "POST", url: url, headers: [
            "content-type": "application/json; charset=utf-8",
            "authorization": MetricsEndpoint.basic(user: writeKey, password: ""),
            "user-agent": configuration.userAgent,
        ], body: body, timeout: configuration.requestTimeout)
    }

    /// The legacy `/push/events` request for one event (legacy SDKs sent one event per request).
    static func legacyRequest(_ event: PipelineEvent, url: String, siteID: String, apiKey: String,
                              configuration: EventPipelineConfiguration) -> HTTPRequest {
        let body = CIOMetricBody.legacy(event.metric, deliveryID: event.deliveryID, deviceToken: event.recipient,
                                        timestamp: event.timestamp).minifiedBytes()
        return HTTPRequest(method: "POST", url: url, headers: [
            "content-type": "application/json; charset=utf-8",
            "authorization": MetricsEndpoint.basic(user: siteID, password: apiKey),
            "user-agent": configuration.userAgent,
        ], body: body, timeout: configuration.requestTimeout)
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
