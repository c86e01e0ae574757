import Foundation
import PushCore
import PushHTTP

/// The virtual Android phone with one app that embeds the Customer.io Android SDK
/// (docs/specs/android-side.md; docs/android.md). It keeps what a process keeps — the
/// duplicate guard and the channels created so far — and the app's `filesDir` with the
/// pending store. `receive` runs one message through Firebase's rules and the SDK.
public final class AndroidPhone: Sendable {
    public let profile: AndroidAppProfile
    public let transport: any HTTPTransport
    public let store: AndroidPendingDeliveryStore?
    /// Real-time window of `onMessageReceived` (docs/specs/android-side.md §1: ≤ 20 s).
    public let handlerWindowMs: Int64
    /// What the process keeps: the SDK's recent delivery ids, newest first, and the channels created.
    private let process = SanitizerVisibleMutex<(recentDeliveryIDs: [String], createdChannels: [AndroidChannel])>(([], []))

    public init(profile: AndroidAppProfile, transport: any HTTPTransport, filesDir: URL?, handlerWindowMs: Int64 = 20_000) throws {
        self.profile = profile
        self.transport = transport
        self.handlerWindowMs = handlerWindowMs
        store = try filesDir.map { try AndroidPendingDeliveryStore(filesDir: $0) }
    }

    /// The process died: the in-memory duplicate guard goes with it.
    public func killProcess() { process.withLock { $0.recentDeliveryIDs.removeAll() } }

    /// `getOrUpdateMessageAlreadyProcessed`: true when the id is blank or seen in this process.
    func alreadyProcessed(_ id: String) -> Bool {
        process.withLock { process in
            if id.trimmingCharacters(in: .whitespaces).isEmpty { return true }
            if process.recentDeliveryIDs.contains(id) { return true }
            if process.recentDeliveryIDs.count >= AndroidSDKContract.recentDeliveryIDs { process.recentDeliveryIDs.removeLast() }
            process.recentDeliveryIDs.insert(id, at: 0)
            return false
        }
    }

    private func channel(_ id: String) -> AndroidChannel? {
        process.withLock { $0.createdChannels.first { $0.id == id } } ?? profile.channels.first { $0.id == id }
    }

    private func create(_ channel: AndroidChannel) { process.withLock { $0.createdChannels.append(channel) } }

    /// Runs `message` through the phone. `conditions` drive the delivered metric afterwards.
    /// With `deferMetric`, the SDK stores the metric's pending entry but its timeline does not run:
    /// `runDeferredMetric` runs it later (the simulator's offline span, where later pushes land
    /// in the same store before the network returns).
    public func receive(_ message: AndroidMessage, state: AndroidAppState, screenLocked: Bool = false,
                        conditions: AndroidConditions = AndroidConditions(), deferMetric: Bool = false) async -> AndroidReceiveReport {
        let start = ContinuousClock.now
        var timeline: [AndroidTimelineEntry] = []
        var diagnostics: [AndroidDiagnostic] = []
        func note(_ s: String) { timeline.append(AndroidTimelineEntry(atMs: (ContinuousClock.now - start).milliseconds, event: s)) }
        var report = AndroidReceiveReport(messageType: message.type, state: state, effectiveState: state, highPriority: message.highPriority,
                                          arrivedAtMs: 0, handledBy: "none", customerIOPush: message.isCustomerIOPush,
                                          deliveryID: message.deliveryID, duplicate: false, deliveredTracked: false, notification: nil,
                                          notShownReason: nil, diagnostics: [], timeline: [], metric: nil)
        var metricConditions = conditions
        if !message.highPriority, conditions.dozing(at: 0), let wake = conditions.nextOnline(from: 0) {
            report.arrivedAtMs = wake
            metricConditions = conditions.shifted(by: wake)
            diagnostics.append(AndroidDiagnostic("normal-priority-in-doze", "normal-priority message held by Doze until t+\(wake) ms",
                                                 fix: "send time-sensitive pushes with android.priority \"high\" (and make them show a notification, or FCM deprioritises them)"))
        }
        note("FCM message arrives: \(message.type.rawValue) message, \(message.highPriority ? "high" : "normal") priority, app \(state.rawValue)")
        if state == .killed {
            killProcess()
            note("process started by FCM (cold start): Application.onCreate initialises the SDK; its duplicate guard starts empty")
        }
        if state == .foreground && screenLocked {
            report.effectiveState = .background
            note("screen locked: the FCM SDK treats the app as background")
        }
        let foreground = report.effectiveState == .foreground

        // 1. The SDK's CustomerIOCloudMessagingReceiver sees every message's RECEIVE broadcast.
        var guardRan = false
        func trackDelivered(_ path: String) {
            guard let id = message.deliveryID, message.deliveryToken != nil else { return }
            if guardRan { note("\(path): delivery id already processed by the receiver"); return }
            guardRan = true
            if alreadyProcessed(id) {
                report.duplicate = !id.trimmingCharacters(in: .whitespaces).isEmpty
                note("\(path): duplicate guard: \(report.duplicate ? "delivery id \(id) already processed in this process" : "blank delivery id") → no delivered metric")
                diagnostics.append(report.duplicate
                    ? AndroidDiagnostic("duplicate-delivery-id", "delivery id \(id) was processed already in this process: no second delivered metric (the notification is still drawn)")
                    : AndroidDiagnostic("blank-delivery-id", "CIO-Delivery-ID is blank: the SDK treats it as processed and reports nothing", fix: "send the delivery id Customer.io generated"))
                return
            }
            guard profile.autoTrackPushEvents else {
                note("\(path): autoTrackPushEvents is off → no delivered metric")
                return
            }
            report.deliveredTracked = true
            note("\(path): delivered metric tracked (pending store + WorkManager)")
        }
        if message.isCustomerIOPush { trackDelivered("CustomerIOCloudMessagingReceiver") }

        // 2. Firebase's rules: tray or onMessageReceived.
        if !foreground && message.type != .data {
            report.handledBy = "fcm-tray"
            note("background \(message.type.rawValue) message: the FCM SDK draws it in the tray; onMessageReceived is not called")
            await drawTray(message, report: &report, diagnostics: &diagnostics, note: note)
        } else {
            let rival = profile.messagingServices.filter { $0.priority > -1 }.max { $0.priority < $1.priority }
            if let rival, !rival.forwardsToCustomerIO {
                report.handledBy = rival.name
                note("onMessageReceived goes to \(rival.name) (priority \(rival.priority) beats the SDK's -1); the SDK never sees it")
                report.notShownReason = "\(rival.name) received the message; it draws (or not) on its own"
                diagnostics.append(AndroidDiagnostic("service-outranked", "\(rival.name) outranks CustomerIOFirebaseMessagingService: Customer.io rich pushes are not drawn (customerio-reactnative #87)",
                                                     fix: "declare io.customer.messagingpush.CustomerIOFirebaseMessagingService in your manifest, or call CustomerIOFirebaseMessagingService.onMessageReceived(context, message) from your service"))
            } else {
                report.handledBy = "customer.io"
                if let rival { note("\(rival.name) receives it and forwards to CustomerIOFirebaseMessagingService.onMessageReceived") }
                else { note("CustomerIOFirebaseMessagingService.onMessageReceived") }
                await handleMessage(message, report: &report, diagnostics: &diagnostics, note: note, trackDelivered: trackDelivered)
            }
        }

        report.diagnostics = diagnostics
        report.timeline = timeline
        if report.deliveredTracked { report.metric = await deliveredMetric(message, conditions: metricConditions, deferred: deferMetric) }
        return report
    }

    /// The delivered metric the SDK tracked for `message`: its timeline under `conditions`, or
    /// (`deferred`) only its pending entry, for `runDeferredMetric` to run later.
    private func deliveredMetric(_ message: AndroidMessage, conditions: AndroidConditions, deferred: Bool) async -> AndroidDeliveredReport? {
        guard let id = message.deliveryID, let token = message.deliveryToken else { return nil }
        let runner = AndroidDeliveredMetric(profile: profile, transport: transport, store: store, conditions: conditions)
        if deferred {
            runner.appendEntry(deliveryID: id, deliveryToken: token)
            return nil
        }
        return await runner.run(deliveryID: id, deliveryToken: token)
    }

    /// The timeline of a metric `receive(…, deferMetric: true)` stored, under `conditions` (from
    /// the moment the metric's timeline starts).
    public func runDeferredMetric(deliveryID: String, deliveryToken: String, conditions: AndroidConditions) async -> AndroidDeliveredReport {
        let runner = AndroidDeliveredMetric(profile: profile, transport: transport, store: store, conditions: conditions)
        return await runner.run(deliveryID: deliveryID, deliveryToken: deliveryToken, entryAppended: true)
    }

    /// `CustomerIOPushNotificationHandler.handleMessage` and `handleNotification`.
    private func handleMessage(_ message: AndroidMessage, report: inout AndroidReceiveReport, diagnostics: inout [AndroidDiagnostic],
                               note: (String) -> Void, trackDelivered: (String) -> Void) async {
        guard !message.data.isEmpty else {
            note("handleMessage: empty data → not handled; nothing drawn")
            report.notShownReason = "a notification message in the foreground reaches onMessageReceived, and the SDK draws only messages with data"
            diagnostics.append(AndroidDiagnostic("foreground-notification-not-drawn", "notification-only message in the foreground: nothing is shown",
                                                 fix: "send Customer.io pushes as data messages (title, body, image, link in data), or draw foreground notifications in your app"))
            return
        }
        guard message.isCustomerIOPush else {
            note("handleMessage: no CIO-Delivery-ID/CIO-Delivery-Token → not a Customer.io push; nothing drawn")
            report.notShownReason = "not a Customer.io push: the SDK draws only messages with both delivery keys"
            diagnostics.append(AndroidDiagnostic("not-customer-io", "data has no CIO-Delivery-ID and CIO-Delivery-Token: the SDK ignores the message",
                                                 fix: "send through Customer.io (it adds both keys), or add them to data when testing"))
            return
        }
        trackDelivered("handleMessage")
        let title = message.dataValue(AndroidSDKContract.titleKey) ?? message.notificationTitle ?? ""
        let body = message.dataValue(AndroidSDKContract.bodyKey) ?? message.notificationBody ?? ""
        var channelID = profile.cioChannel
        var importance = AndroidChannel.importanceDefault
        if profile.deviceApiLevel >= 26 {
            if let existing = channel(channelID) {
                importance = existing.importance
            } else {
                let valid = [0, 1, 2, 3, 4, 5]
                importance = profile.cioChannelImportance.flatMap { valid.contains($0) ? $0 : nil } ?? AndroidChannel.importanceDefault
                create(AndroidChannel(id: channelID, name: "\(profile.label) Notifications", importance: importance))
                note("channel '\(channelID)' created (\"\(profile.label) Notifications\", importance \(importance))")
            }
        } else {
            channelID = "(none before Android 8)"
        }
        var image: AndroidImageResult? = nil
        if let url = message.dataValue(AndroidSDKContract.imageKey) ?? message.notificationImage {
            note("image download starts (synchronous, no timeout): \(url)")
            image = await AndroidImageDownload(transport: transport, profile: profile).fetch(url, drawer: .customerIOSDK, windowMs: handlerWindowMs)
            note(image!.shown ? "image decoded: \(image!.format ?? "?"), \(image!.bytes ?? 0) bytes" : "image dropped: \(image!.code ?? "")")
            if let i = image, !i.shown { diagnostics.append(AndroidDiagnostic("image-\(i.code ?? "dropped")", i.reason ?? "", fix: i.fix)) }
            if image?.code == "outlived-window" {
                report.notShownReason = "the image download outlived the handler's window; the notification was never posted"
                return
            }
        }
        let link = message.dataValue(AndroidSDKContract.linkKey)
        let shade = AndroidShadeNotification(drawnBy: .customerIOSDK, title: title, body: body, channelID: channelID, channelImportance: importance,
                                             style: image?.shown == true ? "BigPictureStyle" : "BigTextStyle", image: image,
                                             tapIntent: "NotificationClickReceiverActivity (FLAG_UPDATE_CURRENT | FLAG_IMMUTABLE)",
                                             extras: ["CIO_NotificationPayloadExtras"], link: link)
        post(shade, report: &report, diagnostics: &diagnostics, note: note)
    }

    /// The FCM SDK's tray notification (`CommonNotificationBuilder`, `DisplayNotification`).
    private func drawTray(_ message: AndroidMessage, report: inout AndroidReceiveReport, diagnostics: inout [AndroidDiagnostic],
                          note: (String) -> Void) async {
        var channelID = "fcm_fallback_notification_channel"
        var importance = AndroidChannel.importanceDefault
        if let wanted = message.channelID, let c = channel(wanted) {
            channelID = c.id
            importance = c.importance
        } else if let d = profile.fcmDefaultChannelId, let c = channel(d) {
            channelID = c.id
            importance = c.importance
            if let wanted = message.channelID {
                diagnostics.append(AndroidDiagnostic("missing-channel", "channel '\(wanted)' does not exist: FCM used the manifest default channel '\(d)'",
                                                     fix: "create channel '\(wanted)' at app start, or send a channel_id the app created"))
            }
        } else {
            if channel(channelID) == nil {
                create(AndroidChannel(id: channelID, name: "Misc", importance: AndroidChannel.importanceDefault))
                note("channel 'fcm_fallback_notification_channel' (\"Misc\") created by the FCM SDK")
            }
            let asked = message.channelID.map { "channel '\($0)' does not exist" } ?? "no channel_id in the message"
            diagnostics.append(AndroidDiagnostic("missing-channel", "\(asked) and no usable default_notification_channel_id: shown on FCM's fallback channel \"Misc\"",
                                                 fix: "create the channel at app start and set com.google.firebase.messaging.default_notification_channel_id in the manifest"))
        }
        var image: AndroidImageResult? = nil
        if let url = message.notificationImage {
            note("FCM SDK image download (≤ 1 MiB, waits ≤ 5 s): \(url)")
            image = await AndroidImageDownload(transport: transport, profile: profile).fetch(url, drawer: .fcmSDK, windowMs: handlerWindowMs)
            if let i = image, !i.shown { diagnostics.append(AndroidDiagnostic("image-\(i.code ?? "dropped")", i.reason ?? "", fix: i.fix)) }
        }
        let extras = message.data.map(\.key).filter { !$0.hasPrefix("google.c.") && !$0.hasPrefix("google.n.") }
        let tap = message.clickAction.map { "activity for click_action '\($0)' (FLAG_ACTIVITY_CLEAR_TOP)" }
            ?? message.notificationLink.map { "ACTION_VIEW \($0) (FLAG_ACTIVITY_CLEAR_TOP)" }
            ?? "launcher activity \(profile.launcherActivity) (FLAG_ACTIVITY_CLEAR_TOP), data keys as extras"
        let shade = AndroidShadeNotification(drawnBy: .fcmSDK, title: message.notificationTitle ?? "", body: message.notificationBody ?? "",
                                             channelID: channelID, channelImportance: importance,
                                             style: image?.shown == true ? "BigPictureStyle" : "default", image: image, tapIntent: tap,
                                             extras: extras, link: nil)
        if message.dataValue(AndroidSDKContract.linkKey) != nil || message.dataValue(AndroidSDKContract.imageKey) != nil {
            diagnostics.append(AndroidDiagnostic("tray-ignores-cio-keys", "the FCM tray notification ignores data.image and data.link; a tap opens the launcher with the data as extras",
                                                 fix: "send Customer.io rich pushes as data messages so the SDK draws them"))
        }
        post(shade, report: &report, diagnostics: &diagnostics, note: note)
    }

    private func post(_ shade: AndroidShadeNotification, report: inout AndroidReceiveReport, diagnostics: inout [AndroidDiagnostic],
                      note: (String) -> Void) {
        if profile.deviceApiLevel >= 33 && !profile.postNotificationsGranted {
            note("notify(): POST_NOTIFICATIONS not granted → nothing shown, no error")
            report.notShownReason = "POST_NOTIFICATIONS is not granted (Android 13+): notify() shows nothing and raises no error"
            diagnostics.append(AndroidDiagnostic("permission-denied", report.notShownReason!,
                                                 fix: "ask for POST_NOTIFICATIONS at a moment the user understands; the delivered metric is still reported"))
            return
        }
        if shade.channelImportance == AndroidChannel.importanceNone {
            note("notify(): channel '\(shade.channelID)' is blocked (importance NONE) → nothing shown")
            report.notShownReason = "channel '\(shade.channelID)' is turned off by the user"
            diagnostics.append(AndroidDiagnostic("channel-blocked", report.notShownReason!, fix: "the user must turn the channel back on in system settings"))
            return
        }
        note("notify(): shown on channel '\(shade.channelID)'")
        report.notification = shade
    }
}

extension AndroidConditions {
    /// The same conditions seen from `offset` ms later (windows moved, instants moved).
    public func shifted(by offset: Int64) -> AndroidConditions {
        func move(_ w: AndroidTimeWindow) -> AndroidTimeWindow? {
            let s = max(0, w.startMs - offset), e = w.endMs - offset
            return e > s ? AndroidTimeWindow(startMs: s, endMs: e) : nil
        }
        var c = self
        c.offline = offline.compactMap(move)
        c.doze = doze.compactMap(move)
        c.killAtMs = killAtMs.map { $0 - offset }.flatMap { $0 >= 0 ? $0 : nil }
        c.launchAtMs = launchAtMs.map { max(0, $0 - offset) }
        c.horizonMs = max(0, horizonMs - offset)
        return c
    }
}
