import Foundation

/// Which App Group store the extension and the host app share (docs/specs/device-side.md §4).
public enum AppGroupStoreKind: String, Codable, Sendable, CaseIterable {
    /// Byte-compatible with the reference SDK's `pending_push_delivery_metrics.json`.
    case cio
    /// pushlab's improved store: SQLite (WAL), dedup by delivery id, acknowledged deletes.
    case sqlite
    case off
}
