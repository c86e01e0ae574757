import Foundation
import PushDevice

/// How `pushlab android` prints its reports for people.
enum AndroidReportText {
    static func receive(_ r: AndroidReceiveReport, source: String, profile: AndroidAppProfile, metricsSent: Bool) -> String {
        var out = "\(source): \(r.messageType.rawValue) message → \(profile.package) (\(r.state.rawValue)"
        out += r.effectiveState != r.state ? ", treated as \(r.effectiveState.rawValue)" : ""
        out += "), sdk \(profile.sdkMode.rawValue) \(profile.sdkVersion), Android API \(profile.deviceApiLevel)\n"
        out += "timeline (real ms)\n"
        for e in r.timeline { out += "  t+\(e.atMs) ms".padding(toLength: 14, withPad: " ", startingAt: 0) + e.event + "\n" }
        out += "shade\n"
        if let n = r.notification {
            out += "  ┌ \(profile.label) · channel \(n.channelID) (importance \(n.channelImportance)) · drawn by \(n.drawnBy.rawValue)\n"
            out += "  │ \(n.title.isEmpty ? "(no title)" : n.title)\n"
            out += "  │ \(n.body.isEmpty ? "(no body)" : n.body)\n"
            if let i = n.image {
                out += i.shown ? "  │ [picture: \(i.format ?? "?"), \(i.bytes ?? 0) bytes, \(i.elapsedMs) ms]\n" : "  │ (no picture: \(i.code ?? "dropped"))\n"
            }
            out += "  └ tap → \(n.tapIntent)" + (n.link.map { ", link \($0)" } ?? "") + "\n"
        } else {
            out += "  (nothing shown) \(r.notShownReason ?? "")\n"
        }
        for d in r.diagnostics {
            out += "\(d.code): \(d.message)\n" + (d.fix.map { "  fix: \($0)\n" } ?? "")
        }
        if let m = r.metric {
            out += "delivered metric (emulated ms)\n"
            for e in m.timeline { out += "  t+\(e.atMs) ms".padding(toLength: 16, withPad: " ", startingAt: 0) + e.event + "\n" }
            out += "  → \(m.fate.rawValue): \(m.acknowledged) acknowledged request(s); \(m.storeEntriesAtEnd) entr\(m.storeEntriesAtEnd == 1 ? "y" : "ies") left in the pending store"
            out += m.jobStillEnqueued ? "; WorkManager job still enqueued" : ""
            out += m.queuedInApp > 0 ? "; \(m.queuedInApp) event(s) in the app's queue" : ""
            out += "\n"
            if !metricsSent { out += "  (no --metrics-url: nothing sent; pass --metrics-url to run the WorkManager job, retries and hand-off)\n" }
        } else if r.customerIOPush {
            out += "delivered metric: not tracked\(r.duplicate ? " (duplicate)" : "")\n"
        }
        return out
    }

    /// Shown with its image (when it had one), and the metric reached the server once (when
    /// a metrics host was given).
    static func isComplete(_ r: AndroidReceiveReport, metricsSent: Bool) -> Bool {
        guard let n = r.notification, n.image?.shown ?? true else { return false }
        if let m = r.metric, metricsSent { return m.fate == .sentOnce }
        return true
    }

    static func tap(_ o: AndroidTapOutcome, upload: String?) -> String {
        var out = "tap → \(o.route.rawValue)" + (o.target.map { ": \($0)" } ?? "") + " (\(o.delivery))\(o.coldStart ? ", cold start" : "")\n"
        for s in o.steps { out += "  · \(s)\n" }
        out += "task: \(o.stack.isEmpty ? "(empty)" : o.stack.joined(separator: " → "))\n"
        out += "opened metrics: \(o.openedMetrics)" + (upload.map { " — \($0)" } ?? "") + "\n"
        for d in o.diagnostics { out += "\(d.code): \(d.message)\n" + (d.fix.map { "  fix: \($0)\n" } ?? "") }
        return out
    }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let columns = max(header.count, rows.map(\.count).max() ?? 0)
        var widths = Array(repeating: 0, count: columns)
        for row in [header] + rows { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
        return ([header] + rows).map { row in
            row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + "\n"
    }
}
