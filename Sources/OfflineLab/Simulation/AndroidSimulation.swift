import Foundation
import PushCore
import PushDevice
import PushHTTP
import PushMetrics
import PushSend
import Synchronization

extension Simulation {
    /// Android phone k's name and FCM registration token.
    static func androidDevice(_ k: Int) -> String { "sim-android-\(k + 1)" }
    static func androidToken(_ k: Int) -> String { "sImAnDrOiD\(String(format: "%06d", k)):APA91b" + String(repeating: "pushlabSimulatedPhone_-", count: 6) }

    /// The experiment on the virtual Android phone (docs/recovery.md "Android"): N data messages
    /// through the real stack — FCM client (OAuth from the dev service account) → the gateway's
    /// FCM route → the Customer.io Android SDK (pending store file, WorkManager job with its
    /// network constraint and back-off, foreground hand-off) → collector — under the same seeded
    /// kills and failing metrics as the iPhone run, plus Doze and offline spans. The pushes are
    /// spread over `devices` phones as on the iPhone; each phone keeps its pending store across
    /// pushes and handles them one at a time in push order, each push's metric running in
    /// emulated time from its arrival to the horizon (an offline span's metrics once the span
    /// ends on that phone). Counts come from the collector's records.
    public func runAndroid(_ p: SimulationParameters, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> SimulationResult {
        let started = ContinuousClock.now
        let settings = p.android ?? AndroidSimulationSettings()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-sim-android-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: work) }
        let fates = (1...max(p.pushes, 1)).map { p.androidFate(of: $0) }
        var byID: [String: PushFate] = [:]
        for (i, f) in fates.enumerated() { byID[Self.deliveryID(i + 1)] = f }
        let fatesByID = byID

        var configuration = LabConfiguration(certsDirectory: certsDirectory, assetsDirectory: assetsDirectory, workDirectory: work)
        let failing = Set(fatesByID.filter(\.value.metricFails).map(\.key))
        configuration.deviceNetwork = { FirstMetricRequestFails(wrapping: $0, deliveryIDs: failing) }
        let lab = try Lab(configuration: configuration)
        try lab.start()

        var app = androidProfile
        app.sdkMode = p.store.androidSDKMode
        let phones = max(p.devices, 1)
        for k in 0..<phones { lab.addAndroidDevice(name: Self.androidDevice(k), profile: app, fcmToken: Self.androidToken(k)) }
        let launches = p.launches
        lab.androidFleet.setArrival { push in
            let fate = push.deliveryID.flatMap { fatesByID[$0] }
            return AndroidArrival(state: .background, conditions: Self.conditions(for: fate, settings: settings, launches: launches),
                                  offlineSpacingMs: fate?.offline == true ? settings.offlinePushSpacingMs : nil)
        }
        var order = [[String]](repeating: [], count: phones)
        for n in 1...max(p.pushes, 1) { order[p.phone(of: n)].append(Self.deliveryID(n)) }
        for k in 0..<phones { lab.androidFleet.expect(device: Self.androidDevice(k), deliveryIDs: order[k]) }

        let client = try lab.fcmClient()
        let done = Counter()
        let image = lab.images.url(for: "small-image.png")
        let refused = await withTaskGroup(of: (Int, Bool).self) { group in
            var refused: [Int] = []
            var next = 1
            func add() {
                let n = next
                next += 1
                let token = Self.androidToken(p.phone(of: n))
                group.addTask {
                    let body = #"{"message":{"token":"\#(token)","android":{"priority":"high"},"data":{"title":"sim","body":"push \#(n)","image":"\#(image)?android=\#(n)","CIO-Delivery-ID":"\#(Self.deliveryID(n))","CIO-Delivery-Token":"sim-token"}}}"#
                    guard let document = try? JSONDocument.parse(Array(body.utf8)),
                          let message = try? PreparedFCMMessage(document: document, validateOnly: false) else {
                        progress(done.increment(), p.pushes)
                        return (n, false)
                    }
                    let ok = await client.send(message, to: .token(token), index: UInt64(n)).isAccepted
                    progress(done.increment(), p.pushes)
                    return (n, ok)
                }
            }
            while next <= p.pushes && next <= max(p.concurrency, 1) { add() }
            for await (n, ok) in group {
                if !ok { refused.append(n) }
                if next <= p.pushes { add() }
            }
            return refused
        }
        let accepted = p.pushes - refused.count
        lab.androidFleet.skip(deliveryIDs: Set(refused.map(Self.deliveryID)))
        await lab.androidFleet.waitUntilIdle()
        let dropped = p.store == .off ? nil : (0..<phones).compactMap { try? lab.androidFleet.phone(named: Self.androidDevice($0))?.store?.droppedAtCap }.reduce(0, +)
        let report = try lab.report()
        let runs = lab.androidFleet.finished
        await lab.stop()
        try? FileManager.default.removeItem(at: work)

        let counts = Self.counts(runs)
        let t = report.totals
        let lost = max(accepted - t.delivered, 0)
        let missed = t.recoveredAtLaunch + lost
        return SimulationResult(parameters: p, sent: p.pushes, accepted: accepted, extensionRan: counts.tracked, killed: counts.killed, expired: 0,
                                deliveredLive: t.deliveredLive, recoveredAtLaunch: t.recoveredAtLaunch, lost: lost, duplicates: t.duplicates,
                                recoveryRatio: missed == 0 ? nil : Double(t.recoveredAtLaunch) / Double(missed),
                                timeToMetricP50Ms: nil, timeToMetricP95Ms: nil, wallSeconds: (ContinuousClock.now - started).seconds,
                                platform: .android, android: counts,
                                byFault: SimulationResult.faultOutcomes(fates: fates, deliveryID: Self.deliveryID, report: report),
                                droppedByCap: dropped)
    }

    /// What the phones' delivered metrics did: tracked, killed, retried, handed off, still pending.
    static func counts(_ runs: [AndroidFleetDelivery]) -> AndroidRunCounts {
        var counts = AndroidRunCounts()
        for run in runs {
            guard let metric = run.report.metric else { continue }
            counts.tracked += 1
            if metric.processKilled { counts.killed += 1 }
            if metric.requests.filter({ $0.channel == .workManager }).count > 1 { counts.retried += 1 }
            if metric.requests.contains(where: { $0.channel == .pipeline && $0.reachedServer }) { counts.handedOff += 1 }
            if metric.fate == .pending { counts.pendingAtEnd += 1 }
        }
        return counts
    }

    /// What happens on the phone after push arrives, from its fate: a kill during the worker's
    /// first request — before it leaves (after the SDK claimed the entry: docs/specs/android-side.md
    /// §4) or after the server got it —, a Doze window from arrival, the launch, the horizon.
    static func conditions(for fate: PushFate?, settings: AndroidSimulationSettings, launches: Int) -> AndroidConditions {
        var c = AndroidConditions(launchAtMs: launches > 0 ? settings.launchAfterMs : nil, horizonMs: settings.horizonMs)
        switch fate?.killed {
        case .beforeSend?: c.killAtMs = c.requestMs / 4
        case .inFlight?, .mixed?: c.killAtMs = c.requestMs * 3 / 4
        case nil: break
        }
        if fate?.dozes == true { c.doze = [AndroidTimeWindow(startMs: 0, endMs: settings.dozeMs)] }
        return c
    }
}

/// The Android run's network fault: the first delivered-metric request (`/v1/track`) of each
/// listed delivery id fails to connect; later ones — WorkManager's retries — pass. Decisions are
/// keyed by delivery id, so concurrency cannot change them.
final class FirstMetricRequestFails: HTTPTransport, Sendable {
    private let wrapped: any HTTPTransport
    private let remaining: Mutex<Set<String>>

    init(wrapping transport: any HTTPTransport, deliveryIDs: Set<String>) {
        wrapped = transport
        remaining = Mutex(deliveryIDs)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.url.hasSuffix(CIOMetricRoute.track.path), let id = FaultyNetwork.deliveryID(request.body),
           remaining.withLock({ $0.remove(id) != nil }) {
            throw HTTPClientError.connectFailed("simulated network failure (pushlab simulate)")
        }
        return try await wrapped.send(request)
    }
}
