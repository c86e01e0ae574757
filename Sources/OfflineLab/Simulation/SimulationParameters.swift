import Foundation
import PushCore
import PushDevice

/// One run of the delivery-metric experiment. Every per-push fault is drawn from `seed` and the
/// push's number, so a seed gives the same faults whatever the threads do.
public struct SimulationParameters: Sendable, Codable, Equatable {
    public var pushes = 1_000
    public var seed: UInt64 = 1
    public var store: SimulatedStore = .cio
    /// Probability that a push's extension is killed before its metric completes.
    public var killRate = 0.1
    public var killStage: KillStage = .beforeSend
    /// Probability that a delivered-metric request fails on the network (no retry in cio-4).
    public var metricFailureRate = 0.0
    /// Push numbers (1-based, inclusive) whose metric requests meet a collector outage.
    public var outages: [ClosedRange<Int>] = []
    /// Image download latency, in emulated time.
    public var imageLatency: LatencyDistribution = .uniform(.milliseconds(50), .milliseconds(400))
    public var budget: Duration = .seconds(30)
    /// Emulated seconds per real second of the lab's shared clock. The simulator's extension
    /// runs each keep their own `EventClock` instead, so it changes nothing in a run (kept so
    /// scripts and JSON that name it still work).
    public var timeScale = 20.0
    /// App cold starts, spread evenly; the last one comes after the last push. 0: never.
    public var launches = 1
    /// The extension's bundle id ends in a suffix the SDK does not strip, so the App Group id
    /// it infers is wrong and the store is silently off (docs/specs/device-side.md §4).
    public var misconfiguredAppGroup = false
    /// Push numbers (1-based, inclusive) that reach a phone while it has no network: the metric
    /// cannot leave (iOS: its request fails, the row waits for a launch; Android: WorkManager waits
    /// for the network, which comes back after the span's last push on that phone).
    public var offline: [ClosedRange<Int>] = []
    /// Pushes in flight at once between the sender and the gateway.
    public var concurrency = 64
    /// The phones the pushes are spread over (each with its own App Group store or `filesDir`).
    public var devices = 100
    /// Notification Service Extensions one iPhone runs at once, started in push order. 1 (the
    /// default) makes every count a function of the seed; more lets the App Group store see
    /// writes interleaved by thread timing (the stress mode: `devices 1`, this 64).
    public var extensionsPerPhone = 1
    /// Android-only settings; nil for an iPhone run.
    public var android: AndroidSimulationSettings?

    public init() {}

    /// The fate of push `n` (1-based), drawn from the seed alone. A push in an offline span
    /// meets no other fault: its metric cannot leave the phone anyway.
    func fate(of n: Int) -> PushFate {
        var random = SeededRandom.derived(seed: seed, index: UInt64(n))
        let killed = random.chance(killRate)
        let stage: KillStage = killStage == .mixed ? (random.chance(0.5) ? .inFlight : .beforeSend) : killStage
        let fails = random.chance(metricFailureRate) || outages.contains { $0.contains(n) }
        let latency = imageLatency.sample(&random)
        if offline.contains(where: { $0.contains(n) }) {
            return PushFate(killed: nil, metricFails: false, imageLatency: latency, offline: true)
        }
        return PushFate(killed: killed ? stage : nil, metricFails: fails && !killed, imageLatency: latency)
    }

    /// The phone push `n` goes to (0-based): drawn from the seed and n, from a stream of its own
    /// (the faults' draws stay as they were).
    func phone(of n: Int) -> Int {
        guard devices > 1 else { return 0 }
        var random = SeededRandom.derived(seed: seed ^ 0xF1EE_7000, index: UInt64(n))
        return Int(random.next() % UInt64(devices))
    }

    /// The fate of push `n` on the Android phone: the same kills and failing metrics as
    /// `fate(of:)` (so both platforms meet the same faults), plus Doze drawn from a stream of
    /// its own (the iPhone's draws stay as they were).
    func androidFate(of n: Int) -> PushFate {
        var f = fate(of: n)
        var random = SeededRandom.derived(seed: seed ^ 0xA4D2_0DCE, index: UInt64(n))
        f.dozes = random.chance(android?.dozeRate ?? 0) && f.killed == nil && !f.metricFails && !f.offline
        return f
    }
}

extension LatencyDistribution: Codable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let d = LatencyDistribution(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "bad latency '\(text)'"))
        }
        self = d
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }
}

/// The parameters as `--json` shows them: the budget as a number with its unit in the key
/// (`budgetMs`), each outage as `{"fromPush", "toPush"}`. Swift's own encodings of `Duration`
/// (`[high, low]` attoseconds) and `ClosedRange` (`[lower, upper]`) would leak into scripts.
/// A new parameter needs a key here too, or it does not appear in the JSON.
extension SimulationParameters {
    enum CodingKeys: String, CodingKey {
        case pushes, seed, store, killRate, killStage, metricFailureRate, outages, imageLatency, budgetMs, timeScale,
             launches, misconfiguredAppGroup, concurrency, android, offline, devices, extensionsPerPhone
    }

    struct Outage: Codable {
        var fromPush: Int
        var toPush: Int
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pushes, forKey: .pushes)
        try c.encode(seed, forKey: .seed)
        try c.encode(store, forKey: .store)
        try c.encode(killRate, forKey: .killRate)
        try c.encode(killStage, forKey: .killStage)
        try c.encode(metricFailureRate, forKey: .metricFailureRate)
        try c.encode(outages.map { Outage(fromPush: $0.lowerBound, toPush: $0.upperBound) }, forKey: .outages)
        try c.encode(imageLatency, forKey: .imageLatency)
        try c.encode(Self.milliseconds(budget), forKey: .budgetMs)
        try c.encode(timeScale, forKey: .timeScale)
        try c.encode(launches, forKey: .launches)
        try c.encode(misconfiguredAppGroup, forKey: .misconfiguredAppGroup)
        try c.encode(concurrency, forKey: .concurrency)
        try c.encode(offline.map { Outage(fromPush: $0.lowerBound, toPush: $0.upperBound) }, forKey: .offline)
        try c.encode(devices, forKey: .devices)
        try c.encode(extensionsPerPhone, forKey: .extensionsPerPhone)
        try c.encodeIfPresent(android, forKey: .android)
    }

    public init(from decoder: Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pushes = try c.decodeIfPresent(Int.self, forKey: .pushes) ?? pushes
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? seed
        store = try c.decodeIfPresent(SimulatedStore.self, forKey: .store) ?? store
        killRate = try c.decodeIfPresent(Double.self, forKey: .killRate) ?? killRate
        killStage = try c.decodeIfPresent(KillStage.self, forKey: .killStage) ?? killStage
        metricFailureRate = try c.decodeIfPresent(Double.self, forKey: .metricFailureRate) ?? metricFailureRate
        for key in [CodingKeys.outages, .offline] {
            guard let o = try c.decodeIfPresent([Outage].self, forKey: key) else { continue }
            guard o.allSatisfy({ $0.fromPush <= $0.toPush }) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "a span's fromPush is after its toPush")
            }
            if key == .outages { outages = o.map { $0.fromPush...$0.toPush } } else { offline = o.map { $0.fromPush...$0.toPush } }
        }
        imageLatency = try c.decodeIfPresent(LatencyDistribution.self, forKey: .imageLatency) ?? imageLatency
        if let ms = try c.decodeIfPresent(Double.self, forKey: .budgetMs) { budget = .milliseconds(ms) }
        timeScale = try c.decodeIfPresent(Double.self, forKey: .timeScale) ?? timeScale
        launches = try c.decodeIfPresent(Int.self, forKey: .launches) ?? launches
        misconfiguredAppGroup = try c.decodeIfPresent(Bool.self, forKey: .misconfiguredAppGroup) ?? misconfiguredAppGroup
        concurrency = try c.decodeIfPresent(Int.self, forKey: .concurrency) ?? concurrency
        devices = try c.decodeIfPresent(Int.self, forKey: .devices) ?? devices
        extensionsPerPhone = try c.decodeIfPresent(Int.self, forKey: .extensionsPerPhone) ?? extensionsPerPhone
        android = try c.decodeIfPresent(AndroidSimulationSettings.self, forKey: .android)
    }

    /// A duration in milliseconds (fractions kept), for JSON.
    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
