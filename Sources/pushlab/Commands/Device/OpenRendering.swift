import Foundation
import PushDevice

/// Text output of `pushlab open`: every sentence comes from the PushDevice values
/// (diagnostics, steps, destinations); this file only lays them out.
enum OpenRendering {
    static func text(_ o: TapOutcome, metric: OpenMetricReport, scene: Bool) -> String {
        var lines: [String] = []
        lines.append("tap:          \(o.tap.action) action, app \(stateText(o.tap.state))\(scene ? ", UIScene" : "")")
        lines.append("push:         \(o.isCustomerIOPush ? "Customer.io push" : "not a Customer.io push")"
                     + (o.link.map { ", link \($0)" } ?? ", no link"))
        lines.append("received via: \(deliveryText(o.delivery))")
        if let r = o.resolution {
            lines.append("deep link:")
            for step in r.steps { lines.append("  - \(step.summary)") }
        }
        let tier = o.tier.map { "tier \($0.rawValue) (\($0.name))" } ?? "no tier ran"
        let delay = (o.resolution?.atSeconds ?? 0) > 0 ? " after \(format(o.resolution!.atSeconds)) s" : ""
        lines.append("destination:  \(o.destination.summary)\(delay) [\(tier)]")
        lines.append("opened:       " + metricText(o, metric))
        for (request, i) in zip(metric.requests, metric.requests.indices) where o.openedEvent != nil {
            let result = i < metric.uploads.count ? " → \(metric.uploads[i].summary)" : ""
            lines.append("  \(request.method) \(request.url)\(result)")
            if i < metric.uploads.count, metric.uploads[i].isUnauthorized {
                lines.append("    the collector does not accept this app's key: the profile's cdpApiKey (or siteId/apiKey for legacy) differs from the collector's")
                lines.append("    fix: start the collector with that key (pushlab collector --cdp-key KEY, or --legacy-key SITE:KEY), or put the collector's key in the profile")
            }
            if !metric.sent {
                for header in request.headers { lines.append("    \(header.joined(separator: ": "))") }
                lines.append("    \(request.body)")
            }
        }
        if !o.deletedImageFiles.isEmpty {
            lines.append("images:       deleted \(o.deletedImageFiles.joined(separator: ", "))")
        }
        lines.append("completion:   \(o.completionHandlerCalls == 1 ? "called once" : "called \(o.completionHandlerCalls) times")")
        if !o.steps.isEmpty { lines.append("order:        \(o.steps.map(\.rawValue).joined(separator: " → "))") }
        let shown = o.diagnostics.sorted { $0.severity > $1.severity }
        if !shown.isEmpty {
            lines.append("diagnostics:")
            for d in shown {
                lines.append("  \(d.severity.rawValue) [\(d.code)] \(d.message)")
                lines.append("    fix: \(d.fix)")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func metricText(_ o: TapOutcome, _ metric: OpenMetricReport) -> String {
        guard let event = o.openedEvent else { return "not reported" }
        let id = event.deliveryID
        if metric.sent { return "queued for delivery \(id), flushed:" }
        return "queued for delivery \(id)" + (metric.note.map { " — \($0)" } ?? "")
    }

    static func stateText(_ s: AppLaunchState) -> String {
        switch s {
        case .cold: return "cold (terminated)"
        case .warm: return "warm (background)"
        case .foreground: return "in the foreground"
        }
    }

    static func deliveryText(_ d: TapDelivery) -> String {
        switch d {
        case .notificationDelegate: return "userNotificationCenter(_:didReceive:withCompletionHandler:)"
        case .launchOptions: return "launch options (handed to the SDK by the app)"
        case .lost: return "nothing — the cold-start tap never reached the SDK"
        case .notPresented: return "nothing — the push was not shown in the foreground"
        }
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
