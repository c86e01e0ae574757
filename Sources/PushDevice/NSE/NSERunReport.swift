import Foundation
import PushCore

/// One line of the extension's timeline: emulated milliseconds since the push arrived.
public struct NSETimelineEntry: Sendable, Codable, Equatable {
    public var tMs: Int64
    public var event: String
}

/// The notification as iOS shows it.
public struct DisplayedNotification: Sendable, Codable, Equatable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var sound: String?
    public var badge: Int?
    public var attachments: [RichPushAttachment]
    /// The whole payload, as `request.content.userInfo`.
    public var userInfo: EncodableJSON
}

/// What became of the pending `delivered` row in the App Group store.
public struct PendingRowReport: Sendable, Codable, Equatable {
    public var store: AppGroupStoreKind
    public var id: UUID?
    public var stored: Bool
    /// Removed after the metric was acknowledged.
    public var removed: Bool
    /// Why nothing was stored (store off, wrong App Group, duplicate, write failure).
    public var note: String?
    /// Older rows the store's cap dropped to make room for this one (nil: none).
    public var droppedOldest: Int? = nil
}

/// Everything one NSE run did, for `pushlab nse` and the simulator.
public struct NSERunReport: Sendable, Codable, Equatable {
    public enum Delivered: String, Sendable, Codable {
        /// The extension's content with the image attached.
        case rich
        /// The push's own content: no image attached (none named, dropped, not ready at expiry,
        /// the extension died, or did not run).
        case original
        /// No alert to show (a silent push).
        case nothing
    }
    public var sdkMode: SDKMode
    public var budgetMs: Int64
    /// iOS ran the extension (`mutable-content: 1` and an alert).
    public var extensionRan: Bool
    /// The SDK handled the push (a Customer.io push); false leaves the content to the app.
    public var handled: Bool
    /// The budget ran out before the extension delivered (`serviceExtensionTimeWillExpire`).
    public var expired: Bool
    /// The process was killed (`--kill-at`) before it delivered.
    public var killed: Bool
    /// How often the SDK called the content handler (must be 0 or 1).
    public var contentHandlerCalls: Int
    public var contentDeliveredAtMs: Int64?
    public var delivered: Delivered
    public var deliveryID: String?
    public var notification: DisplayedNotification?
    public var image: ImageReport
    public var metric: DeliveredMetricOutcome
    public var pendingRow: PendingRowReport
    public var timeline: [NSETimelineEntry]
    /// Why the extension did not run or did not handle the push.
    public var note: String?
}
