import Foundation
import PushDevice

extension SimulatedStore {
    /// The store's name on each platform, for tables: `cio / cio-android`.
    public var bothPlatformsLabel: String { "\(rawValue) / \(androidSDKMode.rawValue)" }
}

extension SimulationResult {
    /// The Android runs as a Markdown table, one row per result.
    public static func androidMarkdown(_ results: [SimulationResult]) -> String {
        var out = "| store (Android SDK) | sent | accepted | tracked | killed | re-sent by WorkManager | handed off at launch | pending at horizon | delivered live | recovered at launch | lost | duplicates | dropped by store cap | recovery ratio |\n"
        out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        for r in results {
            let a = r.android ?? AndroidRunCounts()
            let ratio = r.recoveryRatio.map { String(format: "%.1f%%", $0 * 100) } ?? "—"
            out += "| \(r.parameters.store.rawValue) (\(r.parameters.store.androidSDKMode.rawValue)) | \(r.sent) | \(r.accepted) | \(a.tracked) | \(a.killed) | \(a.retried) | \(a.handedOff) | \(a.pendingAtEnd) | \(r.deliveredLive) | \(r.recoveredAtLaunch) | \(r.lost) | \(r.duplicates) | \(r.droppedByCap.map(String.init) ?? "—") | \(ratio) |\n"
        }
        return out
    }

    /// iOS and Android side by side (`--platform both`): per store, per fault, the metrics each
    /// platform lost, recovered at launch and duplicated; then the store's totals.
    public static func comparisonMarkdown(ios: [SimulationResult], android: [SimulationResult]) -> String {
        var out = "| store (iOS / Android) | fault | pushes | iOS lost | iOS recovered | iOS duplicates | Android lost | Android recovered | Android duplicates |\n"
        out += "|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
        for (i, a) in zip(ios, android) {
            let label = i.parameters.store.bothPlatformsLabel
            let iosRows = Dictionary((i.byFault ?? []).map { ($0.fault, $0) }, uniquingKeysWith: { x, _ in x })
            let androidRows = Dictionary((a.byFault ?? []).map { ($0.fault, $0) }, uniquingKeysWith: { x, _ in x })
            for fault in SimulatedFault.allCases where iosRows[fault] != nil || androidRows[fault] != nil {
                let x = iosRows[fault], y = androidRows[fault]
                let pushes = x.map { String($0.pushes) } ?? "—"
                let pushCell = x?.pushes == y?.pushes || y == nil ? pushes : "\(pushes) / \(y!.pushes)"
                out += "| \(label) | \(fault.rawValue) | \(pushCell) | \(cells(x)) | \(cells(y)) |\n"
            }
            out += "| \(label) | **all** | \(i.accepted) | \(i.lost) | \(i.recoveredAtLaunch) | \(i.duplicates) | \(a.lost) | \(a.recoveredAtLaunch) | \(a.duplicates) |\n"
        }
        return out
    }

    private static func cells(_ row: FaultOutcome?) -> String {
        guard let row else { return "— | — | —" }
        return "\(row.lost) | \(row.recovered) | \(row.duplicates)"
    }
}
