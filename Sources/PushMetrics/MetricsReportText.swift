import Foundation
import PushCore

extension MetricsReport {
    /// Markdown-style tables for people: totals, by route, by SDK, requests, then up to
    /// `deliveryLimit` delivery ids (all when nil).
    public func text(deliveryLimit: Int? = 50) -> String {
        var out = "# Delivery metrics\n\n"
        out += "Recovered at launch = first `delivered` came through /v1/b, or its timestamp was more than "
        out += "\(Self.number(recoveryThresholdSeconds)) s older than its arrival.\n"
        if !hasSentRecords { out += "No gateway records given (--gateway-db): sent, lost and delivery rate are unknown.\n" }
        out += "\n## Totals\n\n"
        out += Self.table(["sent", "delivered", "live", "recovered", "opened", "lost", "duplicates", "delivery rate", "open rate",
                           "recovered share", "lost share", "duplicate share"],
                          [[opt(totals.sent), "\(totals.delivered)", "\(totals.deliveredLive)", "\(totals.recoveredAtLaunch)",
                            "\(totals.opened)", opt(totals.lost), "\(totals.duplicates)", pct(totals.deliveryRate), pct(totals.openRate),
                            pct(totals.recoveredShare), pct(totals.lostShare), pct(totals.duplicateShare)]])
        // A group's delivered ids over ALL sent pushes: a push that never reported cannot be
        // assigned to a route, SDK or platform, so a per-group delivery rate has no denominator.
        let groupHeader = ["metrics", "delivered", "live", "recovered", "opened", "duplicates", "share of all sent", "open rate",
                           "recovered share", "duplicate share"]
        func groupRow(_ s: Summary) -> [String] {
            ["\(s.metricsReceived)", "\(s.delivered)", "\(s.deliveredLive)", "\(s.recoveredAtLaunch)", "\(s.opened)", "\(s.duplicates)",
             pct(s.deliveryRate), pct(s.openRate), pct(s.recoveredShare), pct(s.duplicateShare)]
        }
        out += "\n## By route (SDK mode)\n\n"
        out += Self.table(["route", "mode"] + groupHeader, byRoute.map { [$0.group, $0.sdkMode ?? ""] + groupRow($0) })
        out += "\n## By SDK\n\n"
        out += Self.table(["sdk"] + groupHeader, bySDK.map { [$0.group] + groupRow($0) })
        out += "\n## By platform (User-Agent)\n\n"
        out += Self.table(["platform"] + groupHeader, byPlatform.map { [$0.group] + groupRow($0) })
        if !requests.isEmpty {
            out += "\n## Requests\n\n"
            out += Self.table(["route", "status", "outcome", "count"],
                              requests.map { [$0.route.path, $0.status == 0 ? "dropped" : "\($0.status)", $0.error ?? "accepted", "\($0.count)"] })
        }
        out += "\n## Deliveries (\(deliveries.count))\n\n"
        let shown = deliveryLimit.map { Array(deliveries.prefix($0)) } ?? deliveries
        out += Self.table(["delivery id", "recipient", "sent", "delivered", "opened", "first seen", "last seen", "duplicates",
                           "recovered", "routes"],
                          shown.map { d in
                              [d.deliveryID, shortToken(d.recipient), d.sent.map { $0 ? "yes" : "no" } ?? "?", "\(d.delivered)",
                               "\(d.opened)", ISO8601Timestamp.format(d.firstSeen), ISO8601Timestamp.format(d.lastSeen),
                               "\(d.duplicates)", d.recoveredAtLaunch ? "yes" : "no", d.routes.joined(separator: " ")]
                          })
        if shown.count < deliveries.count {
            out += "… \(deliveries.count - shown.count) more (--limit 0 shows all, --json gives every one)\n"
        }
        return out
    }

    private func opt(_ v: Int?) -> String { v.map(String.init) ?? "?" }
    private func pct(_ v: Double?) -> String { v.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }

    static func number(_ v: Double) -> String { v.rounded() == v ? String(Int(v)) : String(v) }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            "| " + cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ") + " |\n"
        }
        return line(header) + line(widths.map { String(repeating: "-", count: $0) }) + rows.map(line).joined()
    }
}

/// First 8 characters of a device token and `…` (tokens never appear whole in logs).
public func shortToken(_ token: String?) -> String {
    guard let token, !token.isEmpty else { return "-" }
    return token.count <= 8 ? token : String(token.prefix(8)) + "…"
}
