import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics
import PushSend

/// `pushlab demo`: the whole loop offline, with real parts only — the APNs client with the dev
/// `.p8` key over HTTP/2 + TLS, the gateway emulator, the NSE downloading the image from a local
/// HTTPS server and reporting `delivered`, a tap reporting `opened`, the same through FCM, and
/// one push whose extension is killed before its metric completes, recovered at the next app
/// launch; then a Live Activity broadcast, an Android phone and a gorush-format request through `pushlab relay`.
public struct DemoScenario: Sendable {
    public static let device = "iphone"
    public static let apnsToken = String(repeating: "a1b2c3d4", count: 8)
    public static let fcmToken = "dP1aNtH0nYQe:APA91b" + String(repeating: "pushlabDemoTokenXyZ_-", count: 7)
    /// The third `/v1/track` request of the run is the one the demo holds back (see `run`).
    static let heldMetricRequest = 3

    public var profile: AppProfile
    /// The app on the virtual Android phone (the CLI loads `payloads/apps/android-demo.json`).
    public var androidProfile = AndroidAppProfile(
        package: "io.pushlab.shop", label: "Pushlab Shop", cdpApiKey: "pushlab-demo-cdp-key", channels: [AndroidChannel(id: "io.pushlab.shop", importance: 3)],
        activities: [AndroidActivity(name: "MainActivity", launchMode: .singleTop),
                     AndroidActivity(name: "ProductActivity", parent: "MainActivity",
                                     intentFilters: [AndroidIntentFilter(schemes: ["pushlab"], hosts: ["products"])])])
    /// The app on the virtual Retainza iPhone (payloads/apps/retainza-demo.json's values).
    public var retainzaProfile = RetainzaAppProfile(publicKey: "pk_test_pushlabRetainzaDemo")
    /// Called after each step, for live output.
    public var progress: @Sendable (DemoStep) -> Void

    public init(profile: AppProfile, progress: @escaping @Sendable (DemoStep) -> Void = { _ in }) {
        self.profile = profile
        self.progress = progress
    }

    /// The collector fault that makes the kill step deterministic: the killed push's metric
    /// request is held 2 s (a slow network) and then refused, so it can only arrive by recovery.
    public static var collectorFaults: FaultPlan {
        FaultPlan(seed: 1, rules: [FaultRule(route: CIOMetricRoute.track.path, requests: RequestWindow(lower: heldMetricRequest, upper: heldMetricRequest),
                                             latency: .fixed(.seconds(2)), outcome: .status(503, retryAfter: nil, reason: nil))])
    }

    public func run(lab: Lab) async -> DemoReport {
        var steps: [DemoStep] = []
        let start = ContinuousClock.now
        func record(_ title: String, _ passed: Bool, _ details: [String]) {
            let ms = Int((ContinuousClock.now - start) / .milliseconds(1))
            let step = DemoStep(title: title, passed: passed, details: details, elapsedMs: ms)
            steps.append(step)
            progress(step)
        }

        lab.addDevice(name: Self.device, profile: profile, apnsToken: Self.apnsToken, fcmToken: Self.fcmToken)
        record("lab started", true, [
            "APNs gateway   \(lab.gateway.apnsURL ?? "?")",
            "FCM + OAuth    \(lab.gateway.fcmURL ?? "?")",
            "collector      \(lab.collectorURL)",
            "image server   \(lab.images.url(for: ""))",
            "device '\(Self.device)': \(profile.bundleID), App Group store \(profile.appGroupStore.rawValue), SDK \(profile.sdkMode.rawValue)",
        ])

        // 1. A rich push through APNs.
        let apnsDelivery = "demo-apns-1"
        let link = "https://links.pushlab.io/products/42"
        guard let apns = try? lab.apnsClient() else {
            record("APNs client", false, ["could not load the dev .p8 key from certs/"])
            return DemoReport(steps: steps, report: nil)
        }
        let sent = await sendAPNs(apns, deliveryID: apnsDelivery, image: lab.images.url(for: "demo-image.png"), link: link)
        record("APNs: rich push sent with the .p8 key over HTTP/2 + TLS", sent.ok, sent.details)
        await lab.fleet.waitUntilIdle()
        let nse1 = lab.fleet.finished.first { $0.report.deliveryID == apnsDelivery }?.report
        record("NSE: image downloaded within the budget, delivered metric reported", nseOK(nse1, rich: true), describe(nse1))

        // 2. The user taps it.
        if let nse1 {
            let tap = await self.tap(lab: lab, report: nse1, link: link, deliveryID: apnsDelivery)
            record("tap: deep link resolved, opened metric reported", tap.ok, tap.details)
        }

        await fcmStep(lab: lab, link: link, record: record)
        await killedExtensionStep(lab: lab, apns: apns, record: record)

        await liveActivityStep(lab: lab, credential: apns.credential, record: record)
        await androidStep(lab: lab, record: record)
        await relayStep(lab: lab, record: record)
        await retainzaStep(lab: lab, record: record)

        lab.collector.flush()
        let report = try? lab.collector.report(gatewayDatabasePath: lab.gateway.configuration.recordsPath.map { lab.gateway.records.flush(); return $0 })
        if let report {
            let t = report.totals
            record("collector report", t.delivered == 5 && t.opened == 2 && t.duplicates == 0 && t.recoveredAtLaunch == 1, [
                "sent \(t.sent ?? 0), delivered \(t.delivered) (live \(t.deliveredLive), recovered at launch \(t.recoveredAtLaunch)), opened \(t.opened), duplicates \(t.duplicates)",
            ])
        }
        return DemoReport(steps: steps, report: report)
    }

    /// 3. The rich push again, through FCM.
    private func fcmStep(lab: Lab, link: String, record: (String, Bool, [String]) -> Void) async {
        let fcmDelivery = "demo-fcm-1"
        if let fcm = try? lab.fcmClient() {
            let r = await sendFCM(fcm, deliveryID: fcmDelivery, image: lab.images.url(for: "demo-image.png"), link: link)
            record("FCM: OAuth token from the service account, message sent through HTTP v1", r.ok, r.details)
            await lab.fleet.waitUntilIdle()
            let nse2 = lab.fleet.finished.first { $0.report.deliveryID == fcmDelivery }?.report
            record("NSE: the APNs payload FCM built, image attached, delivered metric reported", nseOK(nse2, rich: true), describe(nse2))
        } else {
            record("FCM client", false, ["could not load certs/fcm-service-account.json"])
        }
    }

    /// 4. An extension killed before its metric completes, recovered at the next launch.
    private func killedExtensionStep(lab: Lab, apns: APNsClient, record: (String, Bool, [String]) -> Void) async {
        let killedDelivery = "demo-killed-1"
        lab.fleet.setKillPolicy { push in push.deliveryID == killedDelivery ? .milliseconds(300) : nil }
        let k = await sendAPNs(apns, deliveryID: killedDelivery, image: nil, link: nil)
        await lab.fleet.waitUntilIdle()
        let nse3 = lab.fleet.finished.first { $0.report.deliveryID == killedDelivery }?.report
        lab.collector.flush()
        let liveBefore = (try? lab.collector.report())?.deliveries.first { $0.deliveryID == killedDelivery }?.delivered ?? 0
        let killedOK = k.ok && nse3?.killed == true && nse3?.pendingRow.stored == true && nse3?.pendingRow.removed == false && liveBefore == 0
        record("NSE killed at 300 ms while its metric request was held by a slow network: the metric is lost, its App Group row stays",
               killedOK, describe(nse3) + ["collector has \(liveBefore) delivered metric(s) for \(killedDelivery)"])
        do {
            let launch = try await lab.launchApp(device: Self.device)
            lab.collector.flush()
            let after = (try? lab.collector.report())?.deliveries.first { $0.deliveryID == killedDelivery }
            let recovered = launch.recovered.contains { $0.deliveryID == killedDelivery } && (after?.delivered ?? 0) == 1
            record("app launch: the pending row is recovered and its delivered metric uploaded with the original timestamp", recovered, [
                "recovered \(launch.recovered.count) row(s): " + launch.recovered.map(\.deliveryID).joined(separator: ", "),
                "rows left in the store: \(launch.remainingInStore)",
                "collector now has \(after?.delivered ?? 0) delivered metric(s) for \(killedDelivery)",
            ])
        } catch {
            record("app launch recovery", false, ["\(error)"])
        }
    }

    private func sendAPNs(_ client: APNsClient, deliveryID: String, image: String?, link: String?) async -> (ok: Bool, details: [String]) {
        var cio: [String] = []
        if let image { cio.append(#""image":"\#(image)""#) }
        if let link { cio.append(#""link":"\#(link)""#) }
        let body = #"{"aps":{"alert":{"title":"pushlab demo","body":"\#(deliveryID)"},"mutable-content":1},"CIO-Delivery-ID":"\#(deliveryID)","CIO-Delivery-Token":"demo-token","CIO":{"push":{\#(cio.joined(separator: ","))}}}"#
        do {
            let push = try PreparedAPNsPush(payload: Array(body.utf8), options: APNsPushOptions(topic: profile.bundleID))
            let result = await client.send(push, to: Self.apnsToken)
            switch result.outcome {
            case .accepted(let a): return (true, ["accepted: apns-id \(a.apnsID)"])
            case .rejected(let r): return (false, ["rejected: \(r)"])
            case .failed(let e): return (false, ["failed: \(e)"])
            case .notSent(let why, _): return (false, ["not sent: \(why)"])
            }
        } catch {
            return (false, ["payload refused before sending: \(error)"])
        }
    }

    private func sendFCM(_ client: FCMClient, deliveryID: String, image: String, link: String) async -> (ok: Bool, details: [String]) {
        let body = #"{"message":{"token":"\#(Self.fcmToken)","apns":{"payload":{"aps":{"alert":{"title":"pushlab demo via FCM","body":"\#(deliveryID)"},"mutable-content":1},"CIO-Delivery-ID":"\#(deliveryID)","CIO-Delivery-Token":"demo-token","CIO":{"push":{"image":"\#(image)","link":"\#(link)"}}}}}}"#
        do {
            let message = try PreparedFCMMessage(document: try JSONDocument.parse(Array(body.utf8)), validateOnly: false)
            let result = await client.send(message, to: .token(Self.fcmToken))
            switch result.outcome {
            case .accepted(let name): return (true, ["accepted: \(name)"])
            case .rejected(let e): return (false, ["rejected: \(e)"])
            case .failed(let e): return (false, ["failed: \(e)"])
            case .notSent(let why, _): return (false, ["not sent: \(why)"])
            case .noAccessToken(let e): return (false, ["no access token: \(e)"])
            }
        } catch {
            return (false, ["message refused before sending: \(error)"])
        }
    }

    private func tap(lab: Lab, report: NSERunReport, link: String, deliveryID: String) async -> (ok: Bool, details: [String]) {
        guard let member = lab.fleet.member(named: Self.device) else { return (false, ["no device"]) }
        let pipeline = LaunchRecovery.pipeline(for: member.profile, transport: lab.client)
        let handler = TapHandler(app: member.profile, pipeline: pipeline, identity: PipelineIdentity(anonymousId: "anon-\(Self.device)"))
        let payload = report.notification?.userInfo.value ?? .object(JSONObject())
        let attachments = (report.notification?.attachments ?? []).map { NotificationAttachment(identifier: $0.identifier, path: $0.path) }
        let outcome = await handler.handle(payload: payload, tap: Tap(action: .default, state: .warm), attachments: attachments)
        let flush = await pipeline.flush()
        var details = ["link \(link) → " + outcome.destination.summary]
        details += (outcome.resolution?.steps ?? []).map { "  " + $0.summary }
        details += [
                       "opened event queued: \(outcome.openedEvent != nil); batch upload sent \(flush.sentEvents) event(s), \(flush.remaining) left in the queue"]
        details += outcome.diagnostics.map { "note: \($0.message)" }
        return (outcome.openedEvent != nil && flush.sentEvents == 1 && flush.remaining == 0, details)
    }

    func nseOK(_ r: NSERunReport?, rich: Bool) -> Bool {
        guard let r else { return false }
        return r.handled && !r.killed && r.contentHandlerCalls == 1 && (!rich || r.delivered == .rich) && r.metric.result == .acknowledged
    }

    func describe(_ r: NSERunReport?) -> [String] {
        guard let r else { return ["the extension did not run (no delivery reached the device)"] }
        let attachment: String = r.notification?.attachments.first.map { a -> String in " with \(a.type) \(a.size) bytes" } ?? ""
        var out = ["shown: \(r.delivered.rawValue) content" + attachment,
                   "image: \(r.image.verdict.rawValue)" + (r.image.reason.map { " — \($0)" } ?? ""),
                   "delivered metric: \(r.metric.result.rawValue)",
                   "App Group row: stored \(r.pendingRow.stored), removed \(r.pendingRow.removed)"]
        if r.killed { out.append("extension killed before it delivered") }
        return out
    }
}
