import Foundation
import PushCore
import PushDevice
import PushGateway
import PushMetrics
import PushSend

/// `pushlab simulate --sdk retainza` / `--compare-sdks` (docs/retainza.md "Both SDKs under the
/// same faults"): the same seeded pushes and faults — offline spans, kills, ingest outages
/// (5xx), launches — on phones with the Customer.io SDK and on phones with the Retainza SDK.
/// Every push goes through the FCM client and the gateway's FCM route; every tap's open and
/// every event are counted from the collector's records.
///
/// A phone keeps the network its last push met (offline, an ingest outage, or normal) until its
/// next push; at the end every phone is back online an hour later. Each push is handled to the
/// end before the next starts, on an emulated clock: the counts follow from the seed alone,
/// whatever the machine's load.
public struct SDKComparison: Sendable {
    public enum SDK: String, Sendable, CaseIterable, Codable {
        case customerIO = "cio"
        case retainza
        public var label: String { self == .customerIO ? "Customer.io (cio-4)" : "Retainza" }
    }

    public var certsDirectory: String
    public var assetsDirectory: String
    public var retainzaProfile: RetainzaAppProfile
    /// The Customer.io app (`--app`): its taps go through `TapHandler`, as `pushlab open` replays them.
    public var customerIOProfile: AppProfile

    public init(certsDirectory: String, assetsDirectory: String, retainzaProfile: RetainzaAppProfile, customerIOProfile: AppProfile) {
        self.certsDirectory = certsDirectory
        self.assetsDirectory = assetsDirectory
        self.retainzaProfile = retainzaProfile
        self.customerIOProfile = customerIOProfile
    }

    static func retainzaToken(_ k: Int) -> String { "rzSim" + String(format: "%05d", k) + ":APA91b" + String(repeating: "RetainzaSimToken_-", count: 6) }
    static func retainzaAPNsToken(_ k: Int) -> String { String(repeating: "7b", count: 28) + String(format: "%08x", k) }
    static func cioToken(_ k: Int) -> String { "cioSim" + String(format: "%05d", k) + ":APA91b" + String(repeating: "CustomerIOSimToken_", count: 6) }
    static func messageID(_ n: Int) -> String { "cmp-\(n)" }

    /// Runs the pushes on `sdks`, one after the other, each on a fresh lab.
    public func run(_ p: SimulationParameters, sdks: [SDK], progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> [SDKComparisonResult] {
        var out: [SDKComparisonResult] = []
        for sdk in sdks {
            out.append(sdk == .retainza ? try await runRetainza(p, progress: progress) : try await runCustomerIO(p, progress: progress))
        }
        return out
    }

    private func lab() throws -> (Lab, URL) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-sdk-\(UUID().uuidString.prefix(8))")
        let lab = try Lab(configuration: LabConfiguration(certsDirectory: certsDirectory, assetsDirectory: assetsDirectory, workDirectory: work))
        try lab.start()
        return (lab, work)
    }

    private func mode(_ f: PushFate) -> PhoneIngestFaults.Mode { f.offline ? .offline : f.metricFails ? .outage : .normal }

    // MARK: Retainza

    private func runRetainza(_ p: SimulationParameters, progress: @escaping @Sendable (Int, Int) -> Void) async throws -> SDKComparisonResult {
        let (lab, work) = try lab()
        defer { try? FileManager.default.removeItem(at: work) }
        var r = SDKComparisonResult(sdk: SDK.retainza.label)
        let clock = ManualTimeSource()
        let phones = max(p.devices, 1)
        var phone: [RetainzaPhone] = []
        var network: [PhoneIngestFaults] = []
        for k in 0..<phones {
            var profile = retainzaProfile
            profile.fcmToken = Self.retainzaToken(k)
            profile.apnsToken = Self.retainzaAPNsToken(k)
            let faults = PhoneIngestFaults(lab.deviceTransport)
            network.append(faults)
            phone.append(lab.addRetainzaPhone(name: "cmp-rz-\(k + 1)", profile: profile, clock: clock, transport: faults))
        }
        // Every app was opened once before the pushes: its FCM token is registered.
        for ph in phone { await ph.launch() }
        let server = try lab.retainzaServer()
        var queuedAtCall: Set<String> = []
        var calledAt: [String: String] = [:]
        for batch in Simulation.batches(pushes: p.pushes, launches: p.launches) {
            for n in batch.range {
                let f = p.fate(of: n), k = p.phone(of: n), ph = phone[k]
                if f.killed != nil {
                    if await ph.state != .killed { await ph.kill() }
                } else {
                    if await ph.state == .killed { await ph.launch() }
                    await ph.toBackground()
                }
                network[k].set(mode(f))
                r.pushesSent += 1
                let before = lab.retainzaFleet.arrivals.count
                let sent = try await server.send(messageID: Self.messageID(n), title: "Sale", body: "push \(n)", to: Self.retainzaToken(k))
                await lab.retainzaFleet.waitUntilIdle()
                if sent.contains(where: \.accepted), lab.retainzaFleet.arrivals.count > before, let arrived = lab.retainzaFleet.arrivals.last {
                    r.received += 1
                    await tapAndTrack(n, fate: f, phone: ph, userInfo: arrived.userInfo, clock: clock, into: &r,
                                      queuedAtCall: &queuedAtCall, calledAt: &calledAt)
                }
                // The phone keeps this network until its next push: its back-off timer runs in it.
                clock.advance(by: 60)
                await ph.tick()
                progress(n, p.pushes)
            }
            if batch.launchAfter {
                // The user opens every app: a cold start flushes what the storage kept.
                for ph in phone {
                    await ph.kill()
                    await ph.launch()
                }
            }
        }
        try await countLateEvents(lab: lab, phones: phone, network: network, clock: clock, queuedAtCall: queuedAtCall,
                                  calledAt: calledAt, into: &r)
        await lab.stop()
        return r
    }

    /// The user taps the push (counting how its open was lost, if it was), then the app tracks an event
    /// (counting whether it went out live, was queued or was dropped).
    private func tapAndTrack(_ n: Int, fate f: PushFate, phone ph: RetainzaPhone, userInfo: JSONValue, clock: ManualTimeSource,
                             into r: inout SDKComparisonResult, queuedAtCall: inout Set<String>,
                             calledAt: inout [String: String]) async {
        r.taps += 1
        let open = await ph.tap(userInfo)
        switch open.lost {
        case nil: break
        case .offline?: if f.metricFails && !f.offline { r.opensLostOutage += 1 } else { r.opensLostOffline += 1 }
        case .missingHandleLaunchOptions?: r.opensLostNoLaunchOptions += 1
        case .missingHandleOpen?: r.opensLostNoHandleOpen += 1
        case .consent?, .optedOut?: r.opensLostConsent += 1
        default: break
        }
        let event = "viewed_\(n)"
        calledAt[event] = ISO8601Timestamp.format(clock.now)
        r.eventsTracked += 1
        switch await ph.track(event) {
        case .delivered?: r.eventsDeliveredLive += 1
        case .queued?, .queuedBehind?: r.eventsQueued += 1; queuedAtCall.insert(event)
        case .rejected?: r.eventsDropped4xx += 1
        case .droppedNoConsent?, .droppedOptedOut?: r.eventsDroppedConsent += 1
        default: break
        }
    }

    /// The end: what reached the collector late, what is still queued, what the storage cap dropped
    /// and what a restart lost.
    private func countLateEvents(lab: Lab, phones phone: [RetainzaPhone], network: [PhoneIngestFaults], clock: ManualTimeSource,
                                 queuedAtCall: Set<String>, calledAt: [String: String],
                                 into r: inout SDKComparisonResult) async throws {
        // An hour later, online, each app running: its back-off has passed.
        clock.advance(by: 3600)
        for n in network { n.set(.normal) }
        var pending: Set<String> = []
        var capped: Set<String> = []
        for ph in phone {
            if await ph.state == .killed { await ph.launch() } else { await ph.tick() }
            if let sdk = await ph.sdk {
                for call in await sdk.queuedCalls {
                    if let e = call.body.objectValue?[RetainzaBodyKey.event]?.stringValue, e.hasPrefix("viewed_") { pending.insert(e) }
                }
            }
            for e in await ph.eventsDroppedByCap() where e.hasPrefix("viewed_") { capped.insert(e) }
        }
        let requests = try lab.collector.retainza.store.requests().filter { $0.status == 200 }
        r.opensCounted = Set(requests.filter { $0.route == RetainzaRoute.ack.rawValue && $0.action == RetainzaAckAction.opened.rawValue }
            .compactMap(\.messageID)).count
        let stored = requests.filter { $0.route == RetainzaRoute.track.rawValue && ($0.event ?? "").hasPrefix("viewed_") }
        let storedEvents = Set(stored.compactMap(\.event))
        r.eventsDeliveredLate = storedEvents.intersection(queuedAtCall).count
        r.eventsLateWithOriginalTimestamp = stored.filter { queuedAtCall.contains($0.event ?? "") && $0.callTimestamp == calledAt[$0.event ?? ""] }.count
        r.eventsDroppedCap = capped.subtracting(storedEvents).count
        r.eventsPendingAtEnd = pending.count
        r.eventsLostAtRestart = queuedAtCall.subtracting(storedEvents).subtracting(capped).subtracting(pending).count
    }

    // MARK: Customer.io

    private func runCustomerIO(_ p: SimulationParameters, progress: @escaping @Sendable (Int, Int) -> Void) async throws -> SDKComparisonResult {
        let (lab, work) = try lab()
        defer { try? FileManager.default.removeItem(at: work) }
        var r = SDKComparisonResult(sdk: SDK.customerIO.label)
        let clock = ManualTimeSource()
        let phones = max(p.devices, 1)
        var pipelines: [EventPipeline] = []
        var network: [PhoneIngestFaults] = []
        for k in 0..<phones {
            lab.gateway.devices.register(EmulatedDevice(name: "cmp-cio-\(k + 1)", fcmToken: Self.cioToken(k), bundleID: "io.pushlab.demo",
                                                        firebaseProject: "pushlab-dev"))
            let faults = PhoneIngestFaults(lab.deviceTransport)
            network.append(faults)
            pipelines.append(EventPipeline(configuration: .cdp(baseURL: lab.collectorURL, writeKey: lab.configuration.cdpAPIKey),
                                           transport: faults, time: clock))
        }
        let fcm = try lab.fcmClient()
        for batch in Simulation.batches(pushes: p.pushes, launches: p.launches) {
            for n in batch.range {
                let f = p.fate(of: n), k = p.phone(of: n)
                if f.killed != nil {
                    // The process dies: the pipeline's queue is memory only (device-side.md §3).
                    r.opensLostKilled += await pipelines[k].dropQueue()
                }
                network[k].set(mode(f))
                r.pushesSent += 1
                let id = Self.messageID(n)
                let text = #"{"message":{"token":"\#(Self.cioToken(k))","apns":{"payload":{"aps":{"alert":{"title":"Sale","body":"push \#(n)"},"mutable-content":1},"CIO-Delivery-ID":"\#(id)","CIO-Delivery-Token":"\#(Self.cioToken(k))"}}}}"#
                let sent = await fcm.send(try PreparedFCMMessage(document: try JSONDocument.parse(Array(text.utf8)), validateOnly: false),
                                          to: .token(Self.cioToken(k)))
                if sent.isAccepted {
                    r.received += 1
                    r.taps += 1
                    // The tap as `pushlab open` replays it (docs/deep-links.md): a killed app's tap
                    // is a cold start, which cio-4 still delivers to the notification delegate
                    // (unless the profile says launch options); the opened metric goes into the
                    // app's pipeline, which flushes on its 30-s timer.
                    let payload = try JSONDocument.parse(Array(#"{"aps":{"alert":{"title":"Sale","body":"push \#(n)"},"mutable-content":1},"CIO-Delivery-ID":"\#(id)","CIO-Delivery-Token":"\#(Self.cioToken(k))"}"#.utf8)).root
                    let tap = await TapHandler(app: customerIOProfile, pipeline: pipelines[k], identity: PipelineIdentity(anonymousId: "anon-cmp-\(k + 1)"),
                                               time: clock).handle(payload: payload, tap: Tap(state: f.killed != nil ? .cold : .warm))
                    if tap.openedEvent == nil { r.opensLostNoLaunchOptions += tap.delivery == .lost ? 1 : 0 }
                    clock.advance(by: 30)
                    await pipelines[k].tick()
                }
                clock.advance(by: 30)
                progress(n, p.pushes)
            }
            if batch.launchAfter {
                for pipeline in pipelines {
                    clock.advance(by: 30)
                    await pipeline.tick()
                }
            }
        }
        clock.advance(by: 3600)
        for n in network { n.set(.normal) }
        for pipeline in pipelines {
            await pipeline.flush()
            r.opensPendingAtEnd += await pipeline.queuedEvents.count
        }
        lab.collector.flush()
        r.opensCounted = Set(try lab.collector.store.metrics().filter { $0.reported.metric == .opened }.map(\.reported.deliveryID)).count
        await lab.stop()
        return r
    }
}
