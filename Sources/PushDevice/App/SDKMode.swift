import Foundation

/// Which SDK behaviour the emulated device reproduces.
public enum SDKMode: String, Codable, Sendable, CaseIterable {
    /// Customer.io iOS SDK 4.x, faithfully (docs/specs/device-side.md §2–4): one metric attempt, the JSON
    /// App Group file, rows deleted right after queueing at launch.
    case cio4 = "cio-4"
    /// Customer.io iOS SDK 1.x/2.x metrics: `POST /push/events` with site id + API key (§3).
    case cioLegacy = "cio-legacy"
    /// pushlab's recommended behaviour: retries within the budget, a dedup key, the SQLite
    /// store, rows deleted only after the collector acknowledged them (docs/device.md).
    case improved
}
