import Foundation
import PushCore

/// A tap on a Live Activity, replayed against the app profile (docs/specs/device-side.md §7): iOS
/// opens the app with the widget's URL; every place the app passes opened URLs to Customer.io's
/// `handleWidgetUrl(_:)` calls it once. The helper must run exactly once per URL: it reports
/// `opened` (for a tracking URL with a delivery id) and returns the destination — an ordinary
/// URL unchanged, a tracking URL's redirect, or nothing.
public enum LiveActivityTapReplay {
    public enum Launch: String, Sendable, CaseIterable {
        /// The app was not running: UIScene delivers the URL to `scene(_:willConnectTo:options:)`.
        case cold
        /// The app was running: UIScene delivers it to `scene(_:openURLContexts:)`.
        case warm
    }

    public enum Verdict: String, Sendable {
        /// Handled exactly once.
        case ok
        /// A tracking URL no handler saw: no `opened`, and the app is left with a URL it cannot route.
        case missingHandler = "missing-handler"
        /// Handled more than once: one `opened` per call.
        case doubleHandling = "double-handling"
    }

    public struct Outcome: Sendable, Equatable {
        public var url: String
        public var launch: Launch
        /// Where iOS delivered the URL natively.
        public var deliveredTo: String
        /// Every call of `handleWidgetUrl`, in order.
        public var calls: [LiveActivityProfile.WidgetURLHandler]
        /// The delivery id of each `opened` the SDK reports (one per call of a tracking URL).
        public var openedReports: [String]
        /// Where the app routes after the helper: nil = nothing to route.
        public var destination: String?
        public var isTrackingURL: Bool
        public var verdict: Verdict
        /// What to change in the app, for anything but `ok`.
        public var fix: String?
        /// Things worth knowing that are not failures (e.g. a handler iOS never calls).
        public var notes: [String]
    }

    public static func replay(url: String, profile: LiveActivityProfile, launch: Launch) -> Outcome {
        let handlers = profile.widgetURLHandlers
        let native: LiveActivityProfile.WidgetURLHandler
        let nativeName: String
        switch (profile.lifecycle, launch) {
        case (.uiscene, .cold): (native, nativeName) = (.sceneWillConnect, "scene(_:willConnectTo:options:) (connectionOptions.urlContexts)")
        case (.uiscene, .warm): (native, nativeName) = (.sceneOpenURLContexts, "scene(_:openURLContexts:)")
        case (.appdelegate, _): (native, nativeName) = (.appOpenURL, "application(_:open:options:)")
        }
        var notes: [String] = []
        if profile.lifecycle == .uiscene, handlers.contains(.appOpenURL) {
            notes.append("application(_:open:options:) is listed, but a UIScene app receives URLs in its scene delegate: iOS never calls it")
        }
        var calls: [LiveActivityProfile.WidgetURLHandler] = handlers.contains(native) ? [native] : []
        // The JavaScript layer of a React Native / Expo app sees every URL the app opens, on both paths.
        calls += handlers.filter { $0 == .expoNativeIntent || $0 == .linkingListener }

        let tracking = CIOLiveActivityTrackingURL.parse(url)
        var opened: [String] = []
        if let id = tracking?.deliveryID, !id.isEmpty { opened = Array(repeating: id, count: calls.count) }
        let destination: String? = tracking == nil ? url : (calls.isEmpty ? url : tracking?.redirect)

        var verdict = Verdict.ok
        var fix: String?
        if tracking != nil && calls.isEmpty {
            verdict = .missingHandler
            fix = "call CustomerIO.liveActivities.handleWidgetUrl(url) in \(nativeName) before routing, and route what it returns"
                + (profile.lifecycle == .uiscene ? " (UIScene: cold launch in scene(_:willConnectTo:options:), warm in scene(_:openURLContexts:))" : "")
        } else if calls.count > 1 {
            verdict = .doubleHandling
            let names = calls.map(\.rawValue).joined(separator: " and ")
            fix = "handle the URL in one place only (now: \(names)); "
                + (calls.contains(.expoNativeIntent) && calls.contains(.linkingListener)
                    ? "keep +native-intent.tsx and drop the Linking listener's call"
                    : "the native handler already reported the open and returned the destination: do not pass the URL to handleWidgetUrl again from JavaScript")
        }
        if tracking == nil && calls.isEmpty {
            notes.append("an ordinary URL: the app routes it itself; no Customer.io metric is involved")
        }
        return Outcome(url: url, launch: launch, deliveredTo: nativeName, calls: calls, openedReports: opened,
                       destination: destination, isTrackingURL: tracking != nil, verdict: verdict, fix: fix, notes: notes)
    }
}

extension LiveActivityTapReplay.Outcome {
    /// The events the Live Activities module posts for this tap: one `opened` per call of
    /// `handleWidgetUrl` on a tracking URL, through the same pipeline as a push's `opened`
    /// (`Report Delivery Event`, `recipient` = the URL's delivery token or "" without one; not
    /// de-duplicated) — docs/specs/device-side.md §7.
    public func openedEvents(identity: PipelineIdentity, at timestamp: Date = Date()) -> [PipelineEvent] {
        let token = CIOLiveActivityTrackingURL.parse(url)?.deliveryToken ?? ""
        return openedReports.map { .deliveryMetric(.opened, deliveryID: $0, recipient: token, timestamp: timestamp, identity: identity) }
    }
}
