import Foundation

/// Where a tap went (docs/specs/android-side.md §5).
public enum AndroidTapRoute: String, Sendable, Codable, CaseIterable {
    /// The app's `onNotificationClicked` returned non-null: the app handled it.
    case callback
    /// An activity of the app whose intent filter resolves the link.
    case hostApp = "host-app"
    /// Another installed app (browser, or an app with a matching filter).
    case otherApp = "other-app"
    /// The app's launcher activity.
    case launcher
    /// An activity start from a receiver or service after a tap: blocked on targetSdk ≥ 31.
    case blocked
    case nothing
}

/// What a tap did.
public struct AndroidTapOutcome: Sendable, Codable, Equatable {
    public var route: AndroidTapRoute
    /// The activity (or the other app's package) that opened.
    public var target: String?
    /// How the target got the intent: `onCreate`, `onNewIntent`, or `none`.
    public var delivery: String
    /// The app's process had to start.
    public var coldStart: Bool
    /// The app's task afterwards, bottom to top.
    public var stack: [String]
    /// `opened` metrics the SDK publishes for this tap.
    public var openedMetrics: Int
    public var steps: [String]
    public var diagnostics: [AndroidDiagnostic]
}
