import Foundation

/// What one SDK did with the same seeded pushes and faults (`pushlab simulate --compare-sdks`).
/// Opens and events are counted from the collector's records; the causes come from the phones.
public struct SDKComparisonResult: Sendable, Codable, Equatable {
    public var sdk: String
    public var pushesSent = 0
    /// Accepted by FCM and handed to the phone.
    public var received = 0
    public var taps = 0
    /// Opened acks / metrics the collector stored (once per push).
    public var opensCounted = 0
    public var opensLostOffline = 0
    public var opensLostOutage = 0
    public var opensLostNoLaunchOptions = 0
    public var opensLostNoHandleOpen = 0
    public var opensLostConsent = 0
    /// Customer.io: opened metrics still in the in-memory pipeline when the process was killed.
    public var opensLostKilled = 0
    public var opensPendingAtEnd = 0
    /// Retainza: one `track` per tap.
    public var eventsTracked = 0
    public var eventsDeliveredLive = 0
    public var eventsQueued = 0
    /// Reached the collector after waiting, carrying the call-time timestamp.
    public var eventsDeliveredLate = 0
    public var eventsLateWithOriginalTimestamp = 0
    public var eventsDroppedCap = 0
    public var eventsDropped4xx = 0
    public var eventsDroppedConsent = 0
    /// Lost when the process died with a memory-only queue.
    public var eventsLostAtRestart = 0
    public var eventsPendingAtEnd = 0

    public init(sdk: String) { self.sdk = sdk }

    /// The comparison table: one row per SDK.
    public static func markdown(_ results: [SDKComparisonResult]) -> String {
        var out = "| SDK | sent | received | taps | opens counted | lost: offline | lost: ingest 5xx | lost: no handleLaunchOptions | lost: no handleOpen | lost: consent | lost: killed before upload | pending at end |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        for r in results {
            out += "| \(r.sdk) | \(r.pushesSent) | \(r.received) | \(r.taps) | \(r.opensCounted) | \(r.opensLostOffline) | \(r.opensLostOutage) | \(r.opensLostNoLaunchOptions) | \(r.opensLostNoHandleOpen) | \(r.opensLostConsent) | \(r.opensLostKilled) | \(r.opensPendingAtEnd) |\n"
        }
        let withEvents = results.filter { $0.eventsTracked > 0 }
        if !withEvents.isEmpty {
            out += "\n| SDK | events tracked | delivered live | queued | delivered late | late with original timestamp | dropped: cap | dropped: 4xx | dropped: consent | lost at restart | pending at end |\n"
            out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            for r in withEvents {
                out += "| \(r.sdk) | \(r.eventsTracked) | \(r.eventsDeliveredLive) | \(r.eventsQueued) | \(r.eventsDeliveredLate) | \(r.eventsLateWithOriginalTimestamp) | \(r.eventsDroppedCap) | \(r.eventsDropped4xx) | \(r.eventsDroppedConsent) | \(r.eventsLostAtRestart) | \(r.eventsPendingAtEnd) |\n"
            }
        }
        return out
    }
}
