import Foundation
import PushCore
import PushDevice

/// The App Group setups the experiment compares; each pins the SDK behaviour it belongs to.
public enum SimulatedStore: String, Sendable, Codable, CaseIterable {
    /// No App Group store: what dies with the extension is lost (SDK before 4.4, or not set up).
    case off
    /// The reference SDK 4.x: the JSON file, 100-row cap, rows deleted right after queueing.
    case cio
    /// pushlab's improved mode: SQLite, dedup, rows deleted after the collector acknowledged.
    case sqlite

    var sdkMode: SDKMode { self == .sqlite ? .improved : .cio4 }
    /// The Android SDK behaviour that plays the same part (docs/specs/android-side.md §4): no
    /// pending store before 4.18, the SDK's pending store, pushlab's improved mode.
    public var androidSDKMode: AndroidSDKMode {
        switch self {
        case .off: return .cioAndroidLegacy
        case .cio: return .cioAndroid
        case .sqlite: return .improved
        }
    }
    var storeKind: AppGroupStoreKind {
        switch self {
        case .off: return .off
        case .cio: return .cio
        case .sqlite: return .sqlite
        }
    }
}
