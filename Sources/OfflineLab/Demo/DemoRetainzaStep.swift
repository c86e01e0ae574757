import Foundation
import PushCore
import PushDevice

extension DemoScenario {
    static let retainzaDevice = "iphone-retainza"

    /// The demo's Retainza step (docs/retainza.md): a virtual iPhone whose app embeds the
    /// Retainza SDK registers its FCM token with the collector's modelled ingest API; a campaign
    /// push goes through the FCM client and the gateway to it; a warm tap reaches handleOpen and
    /// the opened ack is counted; an event tracked offline waits in the SDK's queue and arrives
    /// later with its call-time timestamp.
    func retainzaStep(lab: Lab, record: (String, Bool, [String]) -> Void) async {
        let clock = ManualTimeSource(Date())
        let phone = lab.addRetainzaPhone(name: Self.retainzaDevice, profile: retainzaProfile, clock: clock)
        await phone.launch()
        let store = lab.collector.retainza.store
        let registered = (try? store.devices())?.first { $0.token == retainzaProfile.fcmToken } != nil
        let title = "Retainza: FCM token registered, campaign push through FCM, warm tap counted by handleOpen"
        guard registered, let server = try? lab.retainzaServer() else {
            record(title, false, ["the Retainza SDK did not register its FCM token"] + (await phone.timeline).map(\.text))
            return
        }
        await phone.toBackground()
        let sent = (try? await server.send(messageID: "demo-retainza-1", title: "pushlab demo on Retainza", body: "tap me",
                                           to: retainzaProfile.fcmToken)) ?? []
        await lab.retainzaFleet.waitUntilIdle()
        guard let arrival = lab.retainzaFleet.arrivals.last(where: { $0.device == Self.retainzaDevice }) else {
            record(title, false, ["FCM: \(sent.map { $0.accepted ? "accepted" : $0.reason ?? "?" })", "nothing arrived on the Retainza iPhone"])
            return
        }
        let open = await phone.tap(arrival.userInfo)
        let acks = ((try? store.requests()) ?? []).filter { $0.route == RetainzaRoute.ack.rawValue && $0.messageID == "demo-retainza-1" && $0.status == 200 }
        record(title, open.counted && acks.count == 1, [
            "FCM token \(DeviceToken.redacted(retainzaProfile.fcmToken)) registered for user \(retainzaProfile.userID ?? "-")",
            "push demo-retainza-1: FCM \(sent.first?.accepted == true ? "accepted" : "refused"), arrived in the background",
            "tap: \(open.handler ?? "no handler") → opened ack \(open.ack.map { "\($0)" } ?? "-"); acks at the collector: \(acks.count)",
        ])

        // Offline: the event waits in the queue, then arrives with the time it was tracked.
        await phone.setOffline(true)
        let calledAt = ISO8601Timestamp.format(clock.now)
        let queued = await phone.track("demo_offline_event")
        await phone.setOffline(false)
        clock.advance(by: 5)
        await phone.tick()
        let stored = ((try? store.requests()) ?? []).first { $0.event == "demo_offline_event" && $0.status == 200 }
        record("Retainza offline queue: an event tracked offline is delivered later with its call-time timestamp",
               stored?.callTimestamp == calledAt && queued == .queued(reason: "network error"), [
                   "track(demo_offline_event) offline: \(queued.map { "\($0)" } ?? "-")",
                   "after the back-off: " + (stored.map { "stored, timestamp \($0.callTimestamp ?? "-") (called at \(calledAt))" } ?? "not stored"),
               ])
    }
}
