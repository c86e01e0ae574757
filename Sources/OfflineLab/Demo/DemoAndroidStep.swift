import Foundation
import PushCore
import PushDevice
import PushSend

extension DemoScenario {
    static let androidDevice = "pixel"
    static let androidToken = "eAnDr0iDdEm0:APA91b" + String(repeating: "pushlabDemoAndroidXyZ_-", count: 6)

    /// The demo's Android step (docs/android.md): one data message through the FCM client and the
    /// gateway to a virtual Android phone with the Customer.io Android SDK; the SDK draws it with
    /// its image, its WorkManager job reports `delivered` to the collector, and a tap through the
    /// SDK's receiver activity opens the deep link and reports `opened` on the app's pipeline.
    func androidStep(lab: Lab, record: (String, Bool, [String]) -> Void) async {
        let deliveryID = "demo-android-1"
        let link = "pushlab://products/42"
        let profile = lab.addAndroidDevice(name: Self.androidDevice, profile: androidProfile, fcmToken: Self.androidToken)
        guard let fcm = try? lab.fcmClient() else {
            record("Android: FCM client", false, ["could not load certs/fcm-service-account.json"])
            return
        }
        let body = #"{"message":{"token":"\#(Self.androidToken)","android":{"priority":"high"},"data":{"title":"pushlab demo on Android","body":"\#(deliveryID)","image":"\#(lab.images.url(for: "demo-image.png"))","link":"\#(link)","CIO-Delivery-ID":"\#(deliveryID)","CIO-Delivery-Token":"demo-token"}}}"#
        let title = "Android: data message through FCM, drawn by the Customer.io SDK with its image, delivered metric reported by WorkManager"
        let sent: FCMSendResult
        do {
            let message = try PreparedFCMMessage(document: try JSONDocument.parse(Array(body.utf8)), validateOnly: false)
            sent = await fcm.send(message, to: .token(Self.androidToken))
        } catch {
            record(title, false, ["message refused before sending: \(error)"])
            return
        }
        guard sent.isAccepted else {
            record(title, false, ["FCM did not accept it: \(sent.outcome)"])
            return
        }
        await lab.androidFleet.waitUntilIdle()
        guard let received = lab.androidFleet.finished.first(where: { $0.report.deliveryID == deliveryID })?.report else {
            record(title, false, ["the message never reached the virtual Android phone"])
            return
        }
        let shown = received.notification
        let delivered = received.metric?.fate == .sentOnce
        var details = ["handled by \(received.handledBy), app \(received.effectiveState.rawValue)"]
        if let shown {
            details.append("shown on channel '\(shown.channelID)' (\(shown.style))" + (shown.image?.bytes.map { " with a \($0)-byte image" } ?? ""))
        } else {
            details.append("nothing shown: \(received.notShownReason ?? "?")")
        }
        details.append("delivered metric: \(received.metric?.fate.rawValue ?? "not tracked")"
                       + (received.metric?.requests.first.map { " (\($0.channel.rawValue): POST \($0.url) → \($0.status.map(String.init) ?? $0.error ?? "?"))" } ?? ""))
        let drawnWithImage = shown?.image?.shown == true
        record(title, shown != nil && drawnWithImage && delivered, details)

        // The user taps it: the receiver activity reports opened, then routes the link.
        let outcome = AndroidTapRouter(profile: profile).tap(AndroidTap(link: link, state: .background))
        let pipeline = AndroidDeliveredMetric.pipeline(profile: profile, transport: lab.deviceTransport)
        for _ in 0..<outcome.openedMetrics {
            await pipeline.enqueue(.deliveryMetric(.opened, deliveryID: deliveryID, recipient: "demo-token", timestamp: Date(),
                                                   identity: PipelineIdentity(anonymousId: "anon-\(Self.androidDevice)")))
        }
        let flush = await pipeline.flush()
        let tapped = outcome.route == .hostApp && outcome.openedMetrics == 1 && flush.sentEvents == 1 && flush.remaining == 0
        record("Android tap: the deep link opened the app's activity, opened metric reported", tapped, [
            "link \(link) → \(outcome.route.rawValue) \(outcome.target ?? "-") (\(outcome.delivery)), task \(outcome.stack.joined(separator: " → "))",
            "opened metrics: \(outcome.openedMetrics); batch upload sent \(flush.sentEvents) event(s), \(flush.remaining) left in the queue",
        ] + outcome.diagnostics.map { "note: \($0.message)" })
    }
}
