import Foundation

/// What happens to the phone after the push arrives (docs/android.md "Faults"): spans without
/// network, Doze windows (no network for the app and no jobs), a process death, and when the
/// user brings the app to the foreground.
public struct AndroidConditions: Sendable, Codable, Equatable {
    public var offline: [AndroidTimeWindow]
    public var doze: [AndroidTimeWindow]
    /// The process dies at this instant (the system reclaims it; WorkManager jobs survive).
    public var killAtMs: Int64?
    /// The app comes to the foreground (`ON_START`): the SDK's hand-off runs.
    public var launchAtMs: Int64?
    /// How long one metric request takes on the phone's network: it reaches the server half-way.
    public var requestMs: Int64
    /// Nothing is emulated past this instant.
    public var horizonMs: Int64

    public init(offline: [AndroidTimeWindow] = [], doze: [AndroidTimeWindow] = [], killAtMs: Int64? = nil, launchAtMs: Int64? = nil,
                requestMs: Int64 = 200, horizonMs: Int64 = 86_400_000) {
        self.offline = offline
        self.doze = doze
        self.killAtMs = killAtMs
        self.launchAtMs = launchAtMs
        self.requestMs = requestMs
        self.horizonMs = horizonMs
    }

    public func dozing(at t: Int64) -> Bool {
        // The app in the foreground keeps the screen on: no Doze from the launch on.
        if let launch = launchAtMs, t >= launch { return false }
        return doze.contains { $0.contains(t) }
    }

    /// The app can reach the network: not offline and not dozing.
    public func online(at t: Int64) -> Bool { !offline.contains { $0.contains(t) } && !dozing(at: t) }

    /// The first instant ≥ `t` at which the app is online (nil when never before the horizon).
    public func nextOnline(from t: Int64) -> Int64? {
        var at = t
        while at < horizonMs {
            if online(at: at) { return at }
            let ends = (offline + doze).filter { $0.contains(at) }.map(\.endMs)
            var next = ends.max() ?? at + 1
            if let launch = launchAtMs, launch > at, launch < next, !offline.contains(where: { $0.contains(launch) }) { next = launch }
            at = next
        }
        return nil
    }
}
