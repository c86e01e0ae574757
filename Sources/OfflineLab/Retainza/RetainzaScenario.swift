import Foundation
import PushCore
import PushDevice
import PushMetrics

/// One push-side row of the Retainza troubleshooting table (docs/specs/retainza.md §10),
/// reproduced on a lab: a virtual iPhone with the profile, pushes through FCM, the collector's
/// view. `pushlab retainza reproduce NAME` runs it; with a fixed profile the symptom is absent.
public enum RetainzaScenario: String, CaseIterable, Sendable {
    case secretKey = "secret-key"
    case apnsToken = "apns-token"
    case deviceToken = "device-token"
    case missingUserID = "missing-user-id"
    case missingHandleOpen = "missing-handle-open"
    case coldStartOpen = "cold-start-open"
    case memoryStorage = "memory-storage"
    case noSessions = "no-sessions"
    case noConsent = "no-consent"

    /// The table's symptom, as a team reports it.
    public var symptom: String {
        switch self {
        case .secretKey: return "Init throws .configuration"
        case .apnsToken: return "Device registered, pushes never arrive"
        case .deviceToken: return "Warning: \"handleDeviceToken no longer registers\""
        case .missingUserID: return "Token never registers"
        case .missingHandleOpen: return "Pushes arrive, opens are zero (warm taps)"
        case .coldStartOpen: return "Pushes arrive, opens are zero (taps that launch the app)"
        case .memoryStorage: return "Events vanish offline"
        case .noSessions: return "No sessions in the dashboard"
        case .noConsent: return "Nothing sends at all"
        }
    }

    /// The sample profile that shows it (`payloads/apps/…`).
    public var sampleProfile: String {
        switch self {
        case .secretKey: return "payloads/apps/retainza/secret-key.json"
        case .apnsToken: return "payloads/apps/retainza/device-token.json"
        case .deviceToken: return "payloads/apps/retainza/device-token.json"
        case .missingUserID: return "payloads/apps/retainza/no-user.json"
        case .missingHandleOpen: return "payloads/apps/retainza/no-handle-open.json"
        case .coldStartOpen: return "payloads/apps/retainza/no-launch-options.json"
        case .memoryStorage: return "payloads/apps/retainza/memory-storage.json"
        case .noSessions: return "payloads/apps/retainza/no-sessions.json"
        case .noConsent: return "payloads/apps/retainza/no-consent.json"
        }
    }

    /// The finding (RetainzaFinding code) that names the cause.
    public var findingCode: String {
        switch self {
        case .secretKey: return "secret-key"
        case .apnsToken: return "raw-apns-token-registered"
        case .deviceToken: return "deprecated-handleDeviceToken"
        case .missingUserID: return "missing-user-id"
        case .missingHandleOpen: return "missing-handleOpen"
        case .coldStartOpen: return "missing-handleLaunchOptions"
        case .memoryStorage: return "memory-only-storage"
        case .noSessions: return "missing-sessions"
        case .noConsent: return "consent-not-set"
        }
    }
}

/// What a scenario run showed.
public struct RetainzaScenarioReport: Sendable {
    public var scenario: RetainzaScenario
    public var profilePath: String
    /// The symptom showed on this profile.
    public var reproduced: Bool
    /// What was observed, in numbers from the collector and the phone.
    public var observed: [String]
    public var cause: String
    public var fix: String
    public var timeline: [RetainzaTimelineEntry]
}

extension RetainzaScenario {
    /// Runs the scenario on `lab` (started) with `profile`. The lab's clock is the wall clock;
    /// time-dependent steps (the restart, the session timeout) use the phone's emulated clock.
    public func run(lab: Lab, profile: RetainzaAppProfile, profilePath: String) async throws -> RetainzaScenarioReport {
        let clock = ManualTimeSource(Date())
        let phone = lab.addRetainzaPhone(name: "iphone-retainza", profile: profile, clock: clock)
        let store = lab.collector.retainza.store
        let server = try lab.retainzaServer()
        let finding = RetainzaFinding.audit(profile).first { $0.code == findingCode }
        var observed: [String] = []
        var reproduced = false
        var cause = finding?.symptom ?? "not present in this profile"
        var fix = finding?.fix ?? "-"

        func sendPush(_ id: String) async throws -> [RetainzaServer.Delivery] {
            let d = try await server.send(messageID: id, title: "pushlab", body: "Retainza push \(id)")
            await lab.retainzaFleet.waitUntilIdle()
            return d
        }
        func requests(_ route: RetainzaRoute) throws -> [RetainzaIngestStore.Request] {
            try store.requests().filter { $0.route == route.rawValue && $0.status == 200 }
        }

        switch self {
        case .secretKey:
            await phone.launch()
            let error = await phone.startError
            reproduced = error == .secretKey
            observed.append(error.map { "Retainza.start threw: \($0.reason)" } ?? "the SDK started")
            observed.append("requests the collector received: \(try store.requests().count)")

        case .apnsToken:
            // An older build registered the raw APNs token (what handleDeviceToken used to do).
            await phone.launch()
            let older = try RetainzaSDK(profile: phone.profile, storage: RetainzaMemoryStorage(), transport: lab.deviceTransport,
                                        clock: SystemTimeSource(), userProvider: { profile.userID ?? profile.identifyUserID })
            _ = try await older.registerPush(token: profile.apnsToken, force: true)
            let deliveries = try await sendPush("rz-apns-1")
            let raw = deliveries.first { $0.token == profile.apnsToken }
            reproduced = (raw.map { !$0.accepted && $0.pruned } ?? false) && lab.retainzaFleet.arrivals.isEmpty
            observed.append("devices registered: \(try store.devices().count) (an older build's raw APNs token \(DeviceToken.redacted(profile.apnsToken)) among them)")
            if let raw {
                observed.append("server → FCM to the APNs token: \(raw.reason ?? "accepted") — \(raw.detail ?? "")")
                observed.append("device pruned: \(raw.pruned ? "yes" : "no")")
            }
            let fcm = deliveries.first { $0.token == profile.fcmToken }
            observed.append("push to the FCM token: " + (fcm.map { $0.accepted ? "accepted" : "refused (\($0.reason ?? "?"))" } ?? "none: this build never registered it"))
            observed.append("pushes that arrived on the phone: \(lab.retainzaFleet.arrivals.count)")
            cause = "the raw APNs token was registered: FCM answers it with INVALID_ARGUMENT (invalid-registration-token) and the server prunes the device"
            fix = "register the FCM token with RetainzaPush.handleFCMToken(_:) (Messaging.messaging().apnsToken = token first)"

        case .deviceToken:
            await phone.launch()
            let warnings = await phone.timeline.filter { $0.kind == "warning" }
            let devices = try store.devices()
            let deliveries = try await sendPush("rz-dt-1")
            reproduced = warnings.contains { $0.text.contains("handleDeviceToken no longer registers") } && devices.isEmpty
            observed.append("warnings: \(warnings.count)" + (warnings.first.map { " — \($0.text)" } ?? ""))
            observed.append("devices registered: \(devices.count); pushes the server could send: \(deliveries.count)")

        case .missingUserID:
            await phone.launch()
            let threw = await phone.timeline.contains { $0.text.contains(".missingUserId") }
            let devices = try store.devices()
            reproduced = threw && devices.isEmpty
            observed.append("handleFCMToken threw .missingUserId: \(threw ? "yes" : "no")")
            observed.append("devices registered: \(devices.count)")

        case .missingHandleOpen, .coldStartOpen:
            await phone.launch()
            if self == .coldStartOpen { await phone.kill() } else { await phone.toBackground() }
            let deliveries = try await sendPush("rz-open-1")
            let arrived = lab.retainzaFleet.arrivals.last
            var open: RetainzaOpen?
            if let arrived { open = await phone.tap(arrived.userInfo) }
            let opens = try requests(.ack).filter { $0.action == RetainzaAckAction.opened.rawValue }
            reproduced = deliveries.contains { $0.accepted } && arrived != nil && opens.isEmpty
            observed.append("pushes accepted by FCM: \(deliveries.filter(\.accepted).count); arrived on the phone: \(lab.retainzaFleet.arrivals.count)")
            observed.append("tap (\(self == .coldStartOpen ? "cold: it launches the app" : "warm")): " + (open.map { $0.counted ? "counted by \($0.handler ?? "?")" : "not counted (\($0.lost?.rawValue ?? "?"))" } ?? "nothing to tap"))
            observed.append("opened acks at the collector: \(opens.count)")

        case .memoryStorage:
            await phone.launch()
            await phone.setOffline(true)
            for name in ["cart_viewed", "order_placed"] { await phone.track(name) }
            await phone.kill()
            await phone.setOffline(false)
            clock.advance(by: 60)
            await phone.launch()
            let tracked = try requests(.track).filter { $0.event == "cart_viewed" || $0.event == "order_placed" }
            reproduced = tracked.isEmpty
            observed.append("2 events tracked offline, the app killed, relaunched online")
            observed.append("events that reached the collector: \(tracked.count)")

        case .noSessions:
            await phone.launch()
            await phone.toBackground()
            clock.advance(by: 3600)
            await phone.toForeground()
            let sessions = try requests(.track).filter { $0.event == "session_start" }
            reproduced = sessions.isEmpty
            observed.append("launch, background, back an hour later; session_start events at the collector: \(sessions.count)")

        case .noConsent:
            await phone.launch()
            await phone.track("order_placed")
            let counters = await phone.counters()
            let all = try store.requests().count
            reproduced = all == 0
            observed.append("requests the collector received: \(all); calls dropped before consent: \(counters.droppedNoConsent)")
        }
        if !reproduced {
            cause = "the symptom did not show with this profile"
            fix = "-"
        }
        return RetainzaScenarioReport(scenario: self, profilePath: profilePath, reproduced: reproduced, observed: observed,
                                      cause: cause, fix: fix, timeline: await phone.timeline)
    }
}
