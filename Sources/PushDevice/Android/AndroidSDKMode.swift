import Foundation
import PushCore

/// Which Customer.io Android SDK behaviour the virtual phone reproduces
/// (docs/specs/android-side.md §4).
public enum AndroidSDKMode: String, Codable, Sendable, CaseIterable {
    /// 4.18+: pending store, WorkManager job that claims before sending, foreground hand-off.
    case cioAndroid = "cio-android"
    /// 4.11–4.17: WorkManager job (or the direct fallback) only; no pending store, no hand-off.
    case cioAndroidLegacy = "cio-android-legacy"
    /// pushlab's proposal: the entry leaves the store only after a 2xx, and every copy of the
    /// metric carries the same `messageId` so the server can drop repeats.
    case improved
}
