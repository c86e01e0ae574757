import Foundation
import PushCore

/// How the tap reached the SDK.
public enum TapDelivery: String, Sendable, Hashable, Codable {
    /// `userNotificationCenter(_:didReceive:withCompletionHandler:)`.
    case notificationDelegate = "notification-delegate"
    /// The app handed `launchOptions[.remoteNotification]` to the SDK (no completion handler).
    case launchOptions = "launch-options"
    /// A cold-start tap that skipped the delegate and was not handled from the launch options.
    case lost
    /// Foreground push that `willPresent` did not show: there was nothing to tap.
    case notPresented = "not-presented"
}

/// The order of work at a tap (docs/specs/device-side.md §5): opened metric → delete image files →
/// deep link → other notification delegates → completion handler (exactly once).
public enum TapStep: String, Sendable, Hashable, Codable {
    case willPresent = "will-present"
    case openedMetricQueued = "opened-metric-queued"
    case imageFilesDeleted = "image-files-deleted"
    case deepLinkHandled = "deep-link"
    case otherDelegatesCalled = "other-delegates"
    case completionHandlerCalled = "completion-handler"
}

/// Everything one replayed tap did.
public struct TapOutcome: Sendable {
    public var tap: Tap
    public var isCustomerIOPush: Bool
    /// Whether a foreground push was shown by `willPresent` (always true for cold/warm).
    public var presented: Bool
    public var delivery: TapDelivery
    /// `CIO.push.link` as written, when present.
    public var link: String?
    /// Nil when the SDK did not follow a link (no link, not a default tap, tap lost).
    public var resolution: DeepLinkResolution?
    public var destination: TapDestination
    /// The `opened` event queued into the event pipeline, if any.
    public var openedEvent: PipelineEvent?
    public var deletedImageFiles: [String]
    public var completionHandlerCalls: Int
    public var steps: [TapStep]
    /// Tap-level diagnostics followed by the deep-link ones.
    public var diagnostics: [DeepLinkDiagnostic]

    public var tier: DeepLinkTier? { resolution?.tier }
    /// `opened` or `none`, for tables.
    public var metric: String { openedEvent == nil ? "none" : CIOMetric.opened.rawValue }
}
