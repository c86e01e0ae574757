import Foundation

/// The SDK's tap handling (`NotificationClickReceiverActivity` → `processNotificationClick`)
/// and the tray path's `ON_CREATE` tracking, with Android's task rules for the three
/// `PushClickBehavior`s and the Android 12 trampoline restriction.
public struct AndroidTapRouter: Sendable {
    public var profile: AndroidAppProfile

    public init(profile: AndroidAppProfile) { self.profile = profile }

    public func tap(_ tap: AndroidTap) -> AndroidTapOutcome {
        var steps: [String] = []
        var diagnostics: [AndroidDiagnostic] = []
        let cold = tap.state == .killed
        var stack = cold ? [] : (tap.stack ?? [profile.launcherActivity])
        if cold { steps.append("process starts (cold start)") }
        let link = tap.link.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }

        if tap.drawnBy == .fcmSDK {
            return trayTap(tap, link: link, stack: &stack, cold: cold, steps: &steps, diagnostics: &diagnostics)
        }

        if let blocked = openThroughTrampoline(cold: cold, stack: stack, steps: &steps, diagnostics: &diagnostics) { return blocked }

        // (1) opened metric.
        let opened = profile.autoTrackPushEvents ? 1 : 0
        steps.append(opened == 1 ? "opened metric published on the analytics pipeline (/v1/b, batched)" : "autoTrackPushEvents off: no opened metric")
        // (2) callback.
        if let link, let handles = profile.callbackHandles, handles.contains(where: { Self.matches(pattern: $0, link) }) {
            steps.append("onNotificationClicked returned non-null: the app handled \(link)")
            return AndroidTapOutcome(route: .callback, target: "onNotificationClicked", delivery: "none", coldStart: cold, stack: stack,
                                     openedMetrics: opened, steps: steps, diagnostics: diagnostics)
        }
        if link == nil, let raw = tap.link, raw.isEmpty || raw.allSatisfy(\.isWhitespace) {
            steps.append("data.link is blank: ignored")
        }
        // (3) the app's own intent filters.
        if let link, let url = URL(string: link), let activity = profile.activities.first(where: { $0.intentFilters.contains { $0.matches(url) } }) {
            steps.append("ACTION_VIEW \(link) restricted to \(profile.package) resolves to \(activity.name)")
            if url.scheme == "https" || url.scheme == "http", let host = url.host,
               activity.intentFilters.contains(where: { $0.autoVerify && $0.matches(url) }) && !profile.verifiedDomains.contains(host) {
                diagnostics.append(AndroidDiagnostic("app-link-unverified", "\(host) is not verified for \(profile.package): the SDK still opens it in the app (its intent names the package), but the same link from a browser or another app opens the web",
                                                     fix: "publish https://\(host)/.well-known/assetlinks.json with the app's signing-certificate fingerprint"))
            }
            let (delivery, newStack) = start(activity, on: stack, cold: cold, steps: &steps, diagnostics: &diagnostics)
            return AndroidTapOutcome(route: .hostApp, target: activity.name, delivery: delivery, coldStart: cold, stack: newStack,
                                     openedMetrics: opened, steps: steps, diagnostics: diagnostics)
        }
        // (4) another app.
        if let link, let url = URL(string: link) {
            let visibleSchemes = ["http", "https"]
            let filtered = profile.targetSdk >= 30 && profile.deviceApiLevel >= 30
            if let other = profile.installedApps.first(where: { $0.opens(url) && (!filtered || visibleSchemes.contains(url.scheme ?? "")) }) {
                steps.append("no activity of the app resolves \(link); \(other.package) does: started directly")
                return AndroidTapOutcome(route: .otherApp, target: other.package, delivery: "onCreate", coldStart: cold, stack: stack,
                                         openedMetrics: opened, steps: steps, diagnostics: diagnostics)
            }
            if filtered, let hidden = profile.installedApps.first(where: { $0.opens(url) }) {
                diagnostics.append(AndroidDiagnostic("package-visibility", "\(hidden.package) handles \(url.scheme ?? "")://, but the SDK's <queries> only make BROWSABLE http/https handlers visible (Android 11+): the link falls to the launcher",
                                                     fix: "add a <queries> entry for the scheme to the app's manifest, or use an https link"))
            } else {
                diagnostics.append(AndroidDiagnostic("link-unresolved", "nothing on the phone opens \(link): the launcher activity opens instead",
                                                     fix: "add an intent filter for the link to an activity, or send a link the app handles"))
            }
        }
        // (5) launcher.
        guard let launcher = profile.activity(named: profile.launcherActivity) else {
            steps.append("no launcher intent: nothing opens")
            return AndroidTapOutcome(route: .nothing, target: nil, delivery: "none", coldStart: cold, stack: stack, openedMetrics: opened,
                                     steps: steps, diagnostics: diagnostics)
        }
        steps.append("launcher intent for \(launcher.name)")
        let (delivery, newStack) = start(launcher, on: stack, cold: cold, steps: &steps, diagnostics: &diagnostics)
        return AndroidTapOutcome(route: .launcher, target: launcher.name, delivery: delivery, coldStart: cold, stack: newStack,
                                 openedMetrics: opened, steps: steps, diagnostics: diagnostics)
    }

    /// The tap's first hop: NotificationClickReceiverActivity, or the app's own trampoline (a
    /// BroadcastReceiver or Service that starts the activity), which Android 12 blocks for apps
    /// targeting API 31+. The outcome when nothing opens; nil when the tap goes on.
    private func openThroughTrampoline(cold: Bool, stack: [String], steps: inout [String],
                                       diagnostics: inout [AndroidDiagnostic]) -> AndroidTapOutcome? {
        guard profile.clickHandler != .receiverActivity else {
            steps.append("tap opens NotificationClickReceiverActivity (translucent, singleTask, noHistory, taskAffinity \"\")")
            return nil
        }
        let kind = profile.clickHandler == .broadcastReceiver ? "BroadcastReceiver" : "Service"
        steps.append("tap starts the app's \(kind) (a notification trampoline)")
        if profile.targetSdk >= 31 && profile.deviceApiLevel >= 31 {
            steps.append("startActivity from the \(kind) is blocked (targetSdk \(profile.targetSdk) on Android 12+)")
            diagnostics.append(AndroidDiagnostic("trampoline-blocked", "apps targeting API 31+ may not start an activity from a \(kind) reached from a notification tap: nothing opens (customerio-android #154/#166)",
                                                 fix: "let the tap open an activity directly: SDK 3.8+ does (NotificationClickReceiverActivity); remove the app's own trampoline"))
            return AndroidTapOutcome(route: .blocked, target: nil, delivery: "none", coldStart: cold, stack: stack,
                                     openedMetrics: profile.autoTrackPushEvents ? 1 : 0, steps: steps, diagnostics: diagnostics)
        }
        diagnostics.append(AndroidDiagnostic("trampoline-allowed-until-31", "the \(kind) trampoline works only while targetSdk < 31",
                                             fix: "move to SDK 3.8+ before raising targetSdk to 31"))
        return nil
    }

    /// Starts `activity` with the profile's `PushClickBehavior` on the app's task.
    private func start(_ activity: AndroidActivity, on stack: [String], cold: Bool, steps: inout [String],
                       diagnostics: inout [AndroidDiagnostic]) -> (String, [String]) {
        switch profile.pushClickBehavior {
        case .resetTaskStack:
            var chain = [activity.name]
            var parent = activity.parent
            while let p = parent, !chain.contains(p) {
                chain.insert(p, at: 0)
                parent = self.profile.activity(named: p)?.parent
            }
            steps.append("RESET_TASK_STACK: TaskStackBuilder clears the task and rebuilds it: \(chain.joined(separator: " → "))")
            if !stack.isEmpty {
                diagnostics.append(AndroidDiagnostic("task-reset", "the app's running activities (\(stack.joined(separator: " → "))) were finished and recreated",
                                                     fix: "use ACTIVITY_PREVENT_RESTART to keep the user's place (customerio-android #179)"))
            }
            return ("onCreate", chain)
        case .activityPreventRestart:
            steps.append("ACTIVITY_PREVENT_RESTART: FLAG_ACTIVITY_NEW_TASK | FLAG_ACTIVITY_SINGLE_TOP")
            return launch(activity, on: stack, singleTopFlag: true, steps: &steps)
        case .activityNoFlags:
            steps.append("ACTIVITY_NO_FLAGS: startActivity as is; \(activity.name)'s launchMode \(activity.launchMode.rawValue) decides")
            let result = launch(activity, on: stack, singleTopFlag: false, steps: &steps)
            if result.0 == "onCreate", stack.last == activity.name {
                diagnostics.append(AndroidDiagnostic("duplicate-activity", "a second \(activity.name) was stacked on the one already on top",
                                                     fix: "use ACTIVITY_PREVENT_RESTART, or give \(activity.name) launchMode singleTop"))
            }
            return result
        }
    }

    /// Android's task rules for one start on the app's task.
    private func launch(_ activity: AndroidActivity, on stack: [String], singleTopFlag: Bool, steps: inout [String]) -> (String, [String]) {
        let name = activity.name
        switch activity.launchMode {
        case .singleTask, .singleInstance:
            if let i = stack.lastIndex(of: name) {
                steps.append("\(name) (\(activity.launchMode.rawValue)) exists: activities above it finish; onNewIntent")
                return ("onNewIntent", Array(stack[...i]))
            }
        case .singleTop:
            if stack.last == name {
                steps.append("\(name) (singleTop) is on top: onNewIntent")
                return ("onNewIntent", stack)
            }
        case .standard:
            if singleTopFlag && stack.last == name {
                steps.append("\(name) is on top and FLAG_ACTIVITY_SINGLE_TOP: onNewIntent, no restart")
                return ("onNewIntent", stack)
            }
        }
        steps.append("new \(name) instance: onCreate")
        return ("onCreate", stack + [name])
    }

    /// The tray path: FCM's intent with FLAG_ACTIVITY_CLEAR_TOP; `opened` only from an
    /// activity `ON_CREATE` whose extras hold both delivery keys.
    private func trayTap(_ tap: AndroidTap, link: String?, stack: inout [String], cold: Bool, steps: inout [String],
                         diagnostics: inout [AndroidDiagnostic]) -> AndroidTapOutcome {
        let name = tap.clickAction.flatMap { a in profile.activities.first { $0.name == a }?.name } ?? profile.launcherActivity
        guard let activity = profile.activity(named: name) else {
            return AndroidTapOutcome(route: .nothing, target: nil, delivery: "none", coldStart: cold, stack: stack, openedMetrics: 0,
                                     steps: steps, diagnostics: diagnostics)
        }
        steps.append("FCM tray tap: \(name) with the data as extras, FLAG_ACTIVITY_CLEAR_TOP")
        var delivery = "onCreate"
        var newStack = stack + [name]
        if let i = stack.lastIndex(of: name) {
            if activity.launchMode == .standard {
                steps.append("CLEAR_TOP on a standard activity: \(name) and everything above it finish; a new \(name) is created")
                newStack = Array(stack[..<i]) + [name]
            } else {
                steps.append("CLEAR_TOP on a \(activity.launchMode.rawValue) activity: kept, onNewIntent")
                delivery = "onNewIntent"
                newStack = Array(stack[...i])
            }
        }
        var opened = 0
        if profile.autoTrackPushEvents {
            if delivery == "onCreate" {
                opened = tap.recreatedAfterTap ? 2 : 1
                steps.append("ON_CREATE with CIO-Delivery-ID/Token in the extras: opened metric published")
                if tap.recreatedAfterTap {
                    steps.append("activity recreated with the same intent: ON_CREATE again, a second opened metric")
                    diagnostics.append(AndroidDiagnostic("opened-counted-twice", "the recreated activity still carries the delivery keys: opened is counted again (inferred from parseLaunchedActivityForTracking)",
                                                         fix: "send Customer.io pushes as data messages so taps go through NotificationClickReceiverActivity"))
                }
            } else {
                diagnostics.append(AndroidDiagnostic("opened-not-counted", "\(name) received the tap in onNewIntent: the SDK tracks tray taps only in ON_CREATE, so no opened metric (inferred)",
                                                     fix: "send data messages (the SDK draws them and tracks taps itself), or call trackMetric for the intent in onNewIntent"))
            }
        }
        if link != nil {
            diagnostics.append(AndroidDiagnostic("tray-link-ignored", "the tray notification opens \(name); data.link is not followed on this path",
                                                 fix: "send Customer.io pushes as data messages, or route the link in \(name) from the intent extras"))
        }
        return AndroidTapOutcome(route: tap.clickAction == nil ? .launcher : .hostApp, target: name, delivery: delivery, coldStart: cold,
                                 stack: newStack, openedMetrics: opened, steps: steps, diagnostics: diagnostics)
    }

    /// `pushlab://settings*` style patterns: a trailing `*` matches any rest.
    static func matches(pattern: String, _ link: String) -> Bool {
        if pattern == "*" { return true }
        if pattern.hasSuffix("*") { return link.hasPrefix(pattern.dropLast()) }
        return link == pattern
    }
}
