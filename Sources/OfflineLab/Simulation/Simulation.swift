import Foundation
import PushCore
import PushDevice
import PushGateway
import PushMetrics
import PushSend
import Synchronization

/// The delivery-metric experiment (`pushlab simulate`): N pushes through the real stack —
/// APNs client → gateway emulator → the device's extension → collector — under seeded faults,
/// with app launches that recover what the App Group store kept. Counts come from the
/// collector's records, not from the simulator's own bookkeeping.
public struct Simulation: Sendable {
    public var certsDirectory: String
    public var assetsDirectory: String
    /// The app under test; the store and SDK mode are set per run from the parameters.
    public var profile: AppProfile
    /// The Android app for `runAndroid` (its SDK mode is set per run from the store). This
    /// minimal app is for library callers; `pushlab simulate` loads payloads/apps/android-demo.json.
    public var androidProfile = AndroidAppProfile(package: "io.pushlab.shop", label: "Pushlab Shop", cdpApiKey: "pushlab-demo-cdp-key",
                                                  channels: [AndroidChannel(id: "io.pushlab.shop", importance: 3)])
    /// Phone k's name and APNs token.
    static func device(_ k: Int) -> String { "sim-iphone-\(k + 1)" }
    static func token(_ k: Int) -> String { String(repeating: "5e", count: 28) + String(format: "%08x", k) }

    public init(certsDirectory: String, assetsDirectory: String, profile: AppProfile) {
        self.certsDirectory = certsDirectory
        self.assetsDirectory = assetsDirectory
        self.profile = profile
    }

    /// Runs one experiment. `progress(done, total)` is called as pushes complete.
    ///
    /// The pushes are spread over `devices` phones by the seed; each phone runs its extensions in
    /// push order, `extensionsPerPhone` at a time, and is killed at an event (its metric request
    /// held on the phone), not at an instant. With one extension at a time per phone, what each
    /// App Group store sees — writes, removals, evictions, launches — follows from the seed and
    /// the push order alone, so the counts do not depend on the machine's load.
    public func run(_ p: SimulationParameters, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> SimulationResult {
        let started = ContinuousClock.now
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-sim-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: work) }  // also when a step throws
        let fates = (1...max(p.pushes, 1)).map { p.fate(of: $0) }
        var fatesByID: [String: PushFate] = [:]
        for (i, f) in fates.enumerated() { fatesByID[Self.deliveryID(i + 1)] = f }

        var configuration = LabConfiguration(certsDirectory: certsDirectory, assetsDirectory: assetsDirectory, workDirectory: work)
        configuration.budget = p.budget
        configuration.timeScale = p.timeScale
        let byID = fatesByID
        let holds = MetricHolds()
        configuration.deviceNetwork = { FaultyNetwork(wrapping: $0, fates: byID, holds: holds) }
        let lab = try Lab(configuration: configuration)
        try lab.start()

        var app = profile
        app.appGroupStore = p.store.storeKind
        app.sdkMode = p.store.sdkMode
        app.appGroupID = nil
        app.extensionBundleID = app.bundleID + (p.misconfiguredAppGroup ? ".PushExtension" : ".richpush")
        let phones = max(p.devices, 1)
        for k in 0..<phones { lab.addDevice(name: Self.device(k), profile: app, apnsToken: Self.token(k)) }
        // A killed extension dies once its metric request is held on the phone (after its
        // pending row was written; for in-flight, after the collector stored it).
        // Each extension run keeps its own emulated time, which moves only when the run waits
        // (its image's latency, a back-off, its budget): real work takes no emulated time.
        lab.fleet.setClockPerRun { EventClock() }
        lab.fleet.setKillTrigger { push in
            guard let id = push.deliveryID, byID[id]?.killed != nil else { return nil }
            return { await holds.wait(id) }
        }

        let client = try lab.apnsClient()
        let done = Counter()
        var launchReports: [LaunchRecoveryReport] = []
        var acceptedCount = 0
        for batch in Self.batches(pushes: p.pushes, launches: p.launches) {
            var order = [[String]](repeating: [], count: phones)
            for n in batch.range { order[p.phone(of: n)].append(Self.deliveryID(n)) }
            for k in 0..<phones { lab.fleet.expect(device: Self.device(k), deliveryIDs: order[k], extensionsAtOnce: p.extensionsPerPhone) }
            let refused = await send(batch, client: client, lab: lab, parameters: p) { progress(done.increment(), p.pushes) }
            acceptedCount += batch.range.count - refused.count
            lab.fleet.skip(deliveryIDs: Set(refused.map(Self.deliveryID)))
            await lab.fleet.waitUntilIdle()
            if batch.launchAfter {
                for k in 0..<phones { launchReports.append(try await lab.launchApp(device: Self.device(k))) }
            }
        }
        await lab.fleet.waitUntilIdle()
        let report = try lab.report()
        let runs = lab.fleet.finished
        await lab.stop()
        try? FileManager.default.removeItem(at: work)  // inside the measured time: 10,000 pushes leave 10,000 image files

        var result = SimulationResult.make(parameters: p, accepted: acceptedCount, runs: runs, report: report, launches: launchReports,
                                           wallSeconds: (ContinuousClock.now - started).seconds)
        result.byFault = SimulationResult.faultOutcomes(fates: fates, deliveryID: Self.deliveryID, report: report)
        return result
    }

    /// Sends one batch with at most `concurrency` pushes in flight, each to its phone's token;
    /// returns the push numbers the gateway did not accept.
    private func send(_ batch: Batch, client: APNsClient, lab: Lab, parameters p: SimulationParameters,
                      onDone: @escaping @Sendable () -> Void) async -> [Int] {
        let image = lab.images.url(for: "small-image.png")
        return await withTaskGroup(of: (Int, Bool).self) { group in
            var refused: [Int] = []
            var next = batch.range.lowerBound
            func add() {
                let n = next
                next += 1
                let token = Self.token(p.phone(of: n))
                group.addTask {
                    let body = #"{"aps":{"alert":{"title":"sim","body":"push \#(n)"},"mutable-content":1},"CIO-Delivery-ID":"\#(Self.deliveryID(n))","CIO-Delivery-Token":"sim-token","CIO":{"push":{"image":"\#(image)?push=\#(n)"}}}"#
                    guard let push = try? PreparedAPNsPush(payload: Array(body.utf8), options: APNsPushOptions(topic: self.profile.bundleID)) else {
                        onDone()
                        return (n, false)
                    }
                    let ok = await client.send(push, to: token, index: UInt64(n)).isAccepted
                    onDone()
                    return (n, ok)
                }
            }
            while next <= batch.range.upperBound && next - batch.range.lowerBound < max(p.concurrency, 1) { add() }
            for await (n, ok) in group {
                if !ok { refused.append(n) }
                if next <= batch.range.upperBound { add() }
            }
            return refused
        }
    }

    struct Batch: Equatable {
        var range: ClosedRange<Int>
        var launchAfter: Bool
    }

    /// Splits pushes 1…N into `launches` equal batches, each followed by an app launch (none: one
    /// batch, no launch).
    static func batches(pushes: Int, launches: Int) -> [Batch] {
        guard pushes > 0 else { return [] }
        guard launches > 0 else { return [Batch(range: 1...pushes, launchAfter: false)] }
        let count = min(launches, pushes)
        return (0..<count).map { i in
            Batch(range: (i * pushes / count + 1)...((i + 1) * pushes / count), launchAfter: true)
        }
    }

    static func deliveryID(_ n: Int) -> String { "sim-\(n)" }
    static func pushNumber(_ query: String) -> Int? {
        query.split(separator: "&").first { $0.hasPrefix("push=") }.flatMap { Int($0.dropFirst(5)) }
    }
}

/// Counts across tasks.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
}
