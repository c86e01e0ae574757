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
        let rig = Rig(lab: lab, phone: phone, store: lab.collector.retainza.store, server: try lab.retainzaServer(), clock: clock)
        let finding = RetainzaFinding.audit(profile).first { $0.code == findingCode }
        let o: Observation
        switch self {
        case .secretKey: o = try await observeSecretKey(rig)
        case .apnsToken: o = try await observeAPNsToken(rig, profile: profile)
        case .deviceToken: o = try await observeDeviceToken(rig)
        case .missingUserID: o = try await observeMissingUserID(rig)
        case .missingHandleOpen, .coldStartOpen: o = try await observeUncountedOpen(rig)
        case .memoryStorage: o = try await observeMemoryStorage(rig)
        case .noSessions: o = try await observeNoSessions(rig)
        case .noConsent: o = try await observeNoConsent(rig)
        }
        let cause = o.reproduced ? o.cause ?? finding?.symptom ?? "not present in this profile" : "the symptom did not show with this profile"
        let fix = o.reproduced ? o.fix ?? finding?.fix ?? "-" : "-"
        return RetainzaScenarioReport(scenario: self, profilePath: profilePath, reproduced: o.reproduced, observed: o.observed,
                                      cause: cause, fix: fix, timeline: await phone.timeline)
    }

    /// What a scenario runs against: the lab, the phone with the profile's app, the collector's store.
    private struct Rig {
        let lab: Lab
        let phone: RetainzaPhone
        let store: RetainzaIngestStore
        let server: RetainzaServer
        let clock: ManualTimeSource

        func sendPush(_ id: String) async throws -> [RetainzaServer.Delivery] {
            let d = try await server.send(messageID: id, title: "pushlab", body: "Retainza push \(id)")
            await lab.retainzaFleet.waitUntilIdle()
            return d
        }

        func requests(_ route: RetainzaRoute) throws -> [RetainzaIngestStore.Request] {
            try store.requests().filter { $0.route == route.rawValue && $0.status == 200 }
        }
    }

    /// What a scenario saw; `cause` and `fix` replace the audit finding's when the run itself explains them.
    private struct Observation {
        var reproduced = false
        var observed: [String] = []
        var cause: String?
        var fix: String?
    }

    private func observeSecretKey(_ rig: Rig) async throws -> Observation {
        var o = Observation()
        await rig.phone.launch()
        let error = await rig.phone.startError
        o.reproduced = error == .secretKey
        o.observed.append(error.map { "Retainza.start threw: \($0.reason)" } ?? "the SDK started")
        o.observed.append("requests the collector received: \(try rig.store.requests().count)")
        return o
    }

    private func observeAPNsToken(_ rig: Rig, profile: RetainzaAppProfile) async throws -> Observation {
        var o = Observation()
        // An older build registered the raw APNs token (what handleDeviceToken used to do).
        await rig.phone.launch()
        let older = try RetainzaSDK(profile: rig.phone.profile, storage: RetainzaMemoryStorage(), transport: rig.lab.deviceTransport,
                                    clock: SystemTimeSource(), userProvider: { profile.userID ?? profile.identifyUserID })
        _ = try await older.registerPush(token: profile.apnsToken, force: true)
        let deliveries = try await rig.sendPush("rz-apns-1")
        let raw = deliveries.first { $0.token == profile.apnsToken }
        o.reproduced = (raw.map { !$0.accepted && $0.pruned } ?? false) && rig.lab.retainzaFleet.arrivals.isEmpty
        o.observed.append("devices registered: \(try rig.store.devices().count) (an older build's raw APNs token \(DeviceToken.redacted(profile.apnsToken)) among them)")
        if let raw {
            o.observed.append("server → FCM to the APNs token: \(raw.reason ?? "accepted") — \(raw.detail ?? "")")
            o.observed.append("device pruned: \(raw.pruned ? "yes" : "no")")
        }
        let fcm = deliveries.first { $0.token == profile.fcmToken }
        o.observed.append("push to the FCM token: " + (fcm.map { $0.accepted ? "accepted" : "refused (\($0.reason ?? "?"))" } ?? "none: this build never registered it"))
        o.observed.append("pushes that arrived on the phone: \(rig.lab.retainzaFleet.arrivals.count)")
        o.cause = "the raw APNs token was registered: FCM answers it with INVALID_ARGUMENT (invalid-registration-token) and the server prunes the device"
        o.fix = "register the FCM token with RetainzaPush.handleFCMToken(_:) (Messaging.messaging().apnsToken = token first)"
        return o
    }

    private func observeDeviceToken(_ rig: Rig) async throws -> Observation {
        var o = Observation()
        await rig.phone.launch()
        let warnings = await rig.phone.timeline.filter { $0.kind == "warning" }
        let devices = try rig.store.devices()
        let deliveries = try await rig.sendPush("rz-dt-1")
        o.reproduced = warnings.contains { $0.text.contains("handleDeviceToken no longer registers") } && devices.isEmpty
        o.observed.append("warnings: \(warnings.count)" + (warnings.first.map { " — \($0.text)" } ?? ""))
        o.observed.append("devices registered: \(devices.count); pushes the server could send: \(deliveries.count)")
        return o
    }

    private func observeMissingUserID(_ rig: Rig) async throws -> Observation {
        var o = Observation()
        await rig.phone.launch()
        let threw = await rig.phone.timeline.contains { $0.text.contains(".missingUserId") }
        let devices = try rig.store.devices()
        o.reproduced = threw && devices.isEmpty
        o.observed.append("handleFCMToken threw .missingUserId: \(threw ? "yes" : "no")")
        o.observed.append("devices registered: \(devices.count)")
        return o
    }

    private func observeUncountedOpen(_ rig: Rig) async throws -> Observation {
        var o = Observation()
        await rig.phone.launch()
        if self == .coldStartOpen { await rig.phone.kill() } else { await rig.phone.toBackground() }
        let deliveries = try await rig.sendPush("rz-open-1")
        let arrived = rig.lab.retainzaFleet.arrivals.last
        var open: RetainzaOpen?
        if let arrived { open = await rig.phone.tap(arrived.userInfo) }
        let opens = try rig.requests(.ack).filter { $0.action == RetainzaAckAction.opened.rawValue }
        o.reproduced = deliveries.contains { $0.accepted } && arrived != nil && opens.isEmpty
        o.observed.append("pushes accepted by FCM: \(deliveries.filter(\.accepted).count); arrived on the phone: \(rig.lab.retainzaFleet.arrivals.count)")
        o.observed.append("tap (\(self == .coldStartOpen ? "cold: it launches the app" : "warm")): " + (open.map { $0.counted ? "counted by \($0.handler ?? "?")" : "not counted (\($0.lost?.rawValue ?? "?"))" } ?? "nothing to tap"))
        o.observed.append("opened acks at the collector: \(opens.count)")
        return o
    }

    private func observeMemoryStorage(_ rig: Rig) async throws -> Observation {
        var o = Observation()
        await rig.phone.launch()
        await rig.phone.setOffline(true)
        for name in ["cart_viewed", "order_placed"] { await rig.phone.track(name) }
        await rig.phone.kill()
        await rig.phone.setOffline(false)
        rig.clock.advance(by: 60)
        await rig.phone.launch()
        let tracked = try rig.requests(.track).filter { $0.event == "cart_viewed" || $0.event == "order_placed" }
        o.reproduced = tracked.isEmpty
        o.observed.append("2 events tracked offline, the app killed, relaunched online")
        o.observed.append("events that reached the collector: \(tracked.count)")
        return o
    }

    private func observeNoSessions(_ rig: Rig) async throws -> Observation {
        var o = Observation()
        await rig.phone.launch()
        await rig.phone.toBackground()
        rig.clock.advance(by: 3600)
        await rig.phone.toForeground()
        let sessions = try rig.requests(.track).filter { $0.event == "session_start" }
        o.reproduced = sessions.isEmpty
        o.observed.append("launch, background, back an hour later; session_start events at the collector: \(sessions.count)")
        return o
    }

    private func observeNoConsent(_ rig: Rig) async throws -> Observation {
        var o = Observation()
        await rig.phone.launch()
        await rig.phone.track("order_placed")
        let counters = await rig.phone.counters()
        let all = try rig.store.requests().count
        o.reproduced = all == 0
        o.observed.append("requests the collector received: \(all); calls dropped before consent: \(counters.droppedNoConsent)")
        return o
    }
}
