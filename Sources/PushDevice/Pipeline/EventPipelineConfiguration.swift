import Foundation
import PushCore

/// How the host app's event pipeline uploads events (docs/specs/device-side.md §3).
public struct EventPipelineConfiguration: Sendable {
    /// Where events go and how they are shaped.
    public enum Mode: Sendable, Hashable {
        /// Current SDKs (`cio`): batched `POST <base>/v1/b` with the write key (the CDP API key)
        /// in the body and as Basic auth.
        case cdp(batchURL: String, writeKey: String)
        /// Legacy SDKs 1.x/2.x (`cio-legacy`): one `POST <base>/push/events` per metric with
        /// Basic auth `<site id>:<api key>`.
        case legacy(eventsURL: String, siteID: String, apiKey: String)
    }

    public var mode: Mode
    /// Flush as soon as this many events were queued since the last flush (§3: 20).
    public var flushAt: Int
    /// Flush on `tick()` once this many seconds passed since the last flush (§3: 30 s).
    public var flushInterval: TimeInterval
    /// A batch body never exceeds this many bytes; a larger queue goes out in several batches.
    public var maxBatchBytes: Int
    public var userAgent: String
    /// Per-request deadline handed to the transport.
    public var requestTimeout: Duration
    /// Legacy mode only: waits before each retry of a 5xx or network failure (§3: 0.1 s
    /// doubling to 3.2 s), after which all requests pause for `legacyPause` seconds.
    public var legacyRetryDelays: [TimeInterval]
    public var legacyPause: TimeInterval

    public init(mode: Mode, flushAt: Int = 20, flushInterval: TimeInterval = 30, maxBatchBytes: Int = 500_000,
                userAgent: String = "pushlab-device/0.1 (emulated iPhone; iOS 18.0)",
                requestTimeout: Duration = .seconds(30),
                legacyRetryDelays: [TimeInterval] = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2], legacyPause: TimeInterval = 300) {
        self.mode = mode
        self.flushAt = max(1, flushAt)
        self.flushInterval = flushInterval
        self.maxBatchBytes = maxBatchBytes
        self.userAgent = userAgent
        self.requestTimeout = requestTimeout
        self.legacyRetryDelays = legacyRetryDelays
        self.legacyPause = legacyPause
    }

    /// `cio` mode against a base URL such as `https://cdp.customer.io` or a local collector.
    public static func cdp(baseURL: String, writeKey: String) -> EventPipelineConfiguration {
        EventPipelineConfiguration(mode: .cdp(batchURL: joinURL(baseURL, CIOMetricRoute.batch.path), writeKey: writeKey))
    }

    /// `cio-legacy` mode against a base URL such as `https://track-sdk.customer.io`.
    public static func legacy(baseURL: String, siteID: String, apiKey: String) -> EventPipelineConfiguration {
        EventPipelineConfiguration(mode: .legacy(eventsURL: joinURL(baseURL, CIOMetricRoute.legacyEvents.path), siteID: siteID, apiKey: apiKey))
    }

    static func joinURL(_ base: String, _ path: String) -> String {
        var b = base
        while b.hasSuffix("/") { b.removeLast() }
        return b + path
    }
}

extension EventPipelineConfiguration {
    /// The host app's pipeline for `profile`: `cio-legacy` posts to `/push/events` with the
    /// site id and API key; `cio-4` and `improved` batch to `/v1/b` with the CDP API key.
    public init(profile: AppProfile) {
        let endpoint = profile.metricsEndpoint
        switch profile.sdkMode {
        case .cioLegacy:
            self.init(mode: .legacy(eventsURL: endpoint.url(.legacyEvents), siteID: profile.siteID ?? "",
                                    apiKey: profile.apiKey ?? ""))
        case .cio4, .improved:
            self.init(mode: .cdp(batchURL: endpoint.url(.batch), writeKey: profile.cdpAPIKey))
        }
        userAgent = profile.appUserAgent
    }
}
