import Foundation
import PushDevice
import PushMetrics

/// One row of the experiment's table: what happened to N pushes with one App Group setup.
public struct SimulationResult: Sendable, Codable, Equatable {
    public var parameters: SimulationParameters
    public var sent: Int
    /// Answered 200 by the gateway.
    public var accepted: Int
    /// iOS ran the extension for them.
    public var extensionRan: Int
    /// Extensions killed before their metric completed.
    public var killed: Int
    /// Extensions whose budget ran out first (slow images; a metric still held at expiry).
    public var expired: Int
    /// Pushes whose first `delivered` came from the extension itself.
    public var deliveredLive: Int
    /// Pushes whose first `delivered` came from an app launch's recovery.
    public var recoveredAtLaunch: Int
    /// Accepted pushes the collector never got a `delivered` for.
    public var lost: Int
    /// Extra `delivered` metrics beyond the first per push.
    public var duplicates: Int
    /// recovered / (recovered + lost): of the metrics the extension did not deliver, the share
    /// the App Group store brought back. Nil when the extension delivered everything.
    public var recoveryRatio: Double?
    /// Wall-clock time from the gateway's accept to the collector's first `delivered`, in ms (for a
    /// recovered metric it includes the wait for the launch). Measured, so it varies between
    /// runs of the same seed; the counts do not.
    public var timeToMetricP50Ms: Double?
    public var timeToMetricP95Ms: Double?
    public var wallSeconds: Double
    /// Nil for an iPhone run (its output predates the Android phone); `android` otherwise.
    public var platform: SimulatedPlatform?
    /// What the phone did, for an Android run.
    public var android: AndroidRunCounts?
    /// Lost, recovered and duplicated metrics per fault (`--platform both`, Android runs).
    public var byFault: [FaultOutcome]?
    /// Pending rows (entries) the phones' stores dropped at their cap to make room for newer
    /// ones: the reference iOS file keeps 100 rows, pushlab's SQLite store `sqliteStoreCap`
    /// (1,000 by default), the Android SDK's file 100 entries. Nil without a store.
    public var droppedByCap: Int?

    static func make(parameters p: SimulationParameters, accepted: Int, runs: [FleetDelivery], report: MetricsReport,
                     launches: [LaunchRecoveryReport], wallSeconds: Double) -> SimulationResult {
        let t = report.totals
        let lost = max(accepted - t.delivered, 0)
        var latencies: [Double] = report.deliveries.compactMap { d in
            guard d.delivered > 0, let sent = d.sentAt else { return nil }
            return max(d.firstSeen.timeIntervalSince(sent), 0) * 1000
        }
        latencies.sort()
        func pct(_ q: Double) -> Double? {
            guard !latencies.isEmpty else { return nil }
            return latencies[min(latencies.count - 1, Int((Double(latencies.count) * q).rounded(.up)) - 1)].rounded()
        }
        let missed = t.recoveredAtLaunch + lost
        var result = SimulationResult(parameters: p, sent: p.pushes, accepted: accepted,
                                      extensionRan: runs.filter(\.report.extensionRan).count,
                                      killed: runs.filter(\.report.killed).count, expired: runs.filter(\.report.expired).count,
                                      deliveredLive: t.deliveredLive, recoveredAtLaunch: t.recoveredAtLaunch, lost: lost,
                                      duplicates: t.duplicates, recoveryRatio: missed == 0 ? nil : Double(t.recoveredAtLaunch) / Double(missed),
                                      timeToMetricP50Ms: pct(0.5), timeToMetricP95Ms: pct(0.95), wallSeconds: wallSeconds)
        let storeOn = p.store != .off && !p.misconfiguredAppGroup
        result.droppedByCap = storeOn ? runs.compactMap(\.report.pendingRow.droppedOldest).reduce(0, +) : nil
        return result
    }

    /// Per fault: of the accepted pushes that met it, how many metrics the collector never got,
    /// how many came by the app's launch (the batch route), and the extra copies it got.
    static func faultOutcomes(fates: [PushFate], deliveryID: (Int) -> String, report: MetricsReport) -> [FaultOutcome] {
        let lines = Dictionary(report.deliveries.map { ($0.deliveryID, $0) }, uniquingKeysWith: { a, _ in a })
        var rows = Dictionary(uniqueKeysWithValues: SimulatedFault.allCases.map { ($0, FaultOutcome(fault: $0)) })
        for (i, fate) in fates.enumerated() {
            let line = lines[deliveryID(i + 1)]
            let delivered = (line?.delivered ?? 0) > 0
            rows[fate.fault]!.pushes += 1
            if !delivered { rows[fate.fault]!.lost += 1 }
            if delivered, line?.recoveredAtLaunch == true { rows[fate.fault]!.recovered += 1 }
            rows[fate.fault]!.duplicates += line?.duplicates ?? 0
        }
        return SimulatedFault.allCases.compactMap { rows[$0] }.filter { $0.pushes > 0 }
    }

    /// The counts only: what must be identical for the same seed.
    public var counts: [Int] {
        [sent, accepted, extensionRan, killed, expired, deliveredLive, recoveredAtLaunch, lost, duplicates, droppedByCap ?? -1]
            + (android.map { [$0.tracked, $0.killed, $0.retried, $0.handedOff, $0.pendingAtEnd] } ?? [])
            + (byFault ?? []).flatMap { [$0.pushes, $0.lost, $0.recovered, $0.duplicates] }
    }

    /// A Markdown table, one row per result.
    public static func markdown(_ results: [SimulationResult]) -> String {
        var out = "| store | sent | accepted | extension ran | killed | expired | delivered live | recovered at launch | lost | duplicates | dropped by store cap | recovery ratio | p50 / p95 time to metric (wall clock) |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        for r in results {
            let store = r.parameters.store.rawValue + (r.parameters.misconfiguredAppGroup ? " (wrong group id)" : "")
            let ratio = r.recoveryRatio.map { String(format: "%.1f%%", $0 * 100) } ?? "—"
            let times = [r.timeToMetricP50Ms, r.timeToMetricP95Ms].map { $0.map { Self.duration($0) } ?? "—" }.joined(separator: " / ")
            out += "| \(store) | \(r.sent) | \(r.accepted) | \(r.extensionRan) | \(r.killed) | \(r.expired) | \(r.deliveredLive) | \(r.recoveredAtLaunch) | \(r.lost) | \(r.duplicates) | \(r.droppedByCap.map(String.init) ?? "—") | \(ratio) | \(times) |\n"
        }
        return out
    }

    static func duration(_ ms: Double) -> String { ms >= 10_000 ? String(format: "%.0f s", ms / 1000) : ms >= 1000 ? String(format: "%.1f s", ms / 1000) : String(format: "%.0f ms", ms) }
}
