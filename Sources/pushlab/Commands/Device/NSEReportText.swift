import Foundation
import PushCore
import PushDevice

/// The human-readable form of an NSE run: the timeline, then the notification as iOS shows it.
enum NSEReportText {
    /// True when the phone shows everything the push asked for.
    static func isComplete(_ r: NSERunReport) -> Bool {
        !r.expired && !r.killed && r.image.verdict != .dropped && r.metric.result != .failed && r.metric.result != .cancelled
            && skippedImage(r) == nil
    }

    /// The push asks for an image, but iOS never started the extension (no `mutable-content: 1`),
    /// so the phone shows no image and no delivered metric is sent: not a success.
    static func skippedImage(_ r: NSERunReport) -> String? {
        guard !r.extensionRan, case .string(let url)? = r.notification?.userInfo.value["CIO"]?["push"]?["image"] else { return nil }
        return url
    }

    static func render(_ r: NSERunReport, source: String, profile: AppProfile) -> String {
        var out = "pushlab nse \(source)  (app \(profile.bundleID), sdk \(r.sdkMode.rawValue), budget \(r.budgetMs) ms)\n\ntimeline\n"
        for e in r.timeline { out += "  " + "t+\(e.tMs) ms".padding(toLength: 12, withPad: " ", startingAt: 0) + e.event + "\n" }
        out += "\n"
        if let n = r.notification {
            out += "notification (\(r.delivered == .rich ? "rich: the extension's content" : "original content"))\n"
            func line(_ k: String, _ v: String?) { if let v { out += "  " + k.padding(toLength: 10, withPad: " ", startingAt: 0) + v + "\n" } }
            line("title", n.title)
            line("subtitle", n.subtitle)
            line("body", n.body)
            line("sound", n.sound)
            line("badge", n.badge.map(String.init))
            for a in n.attachments {
                let dims = a.dimensions.map { " \($0.width)×\($0.height)" } ?? ""
                line("image", "\(a.identifier)  \(a.type.rawValue)\(dims)  \(a.size) bytes  \(a.path)")
            }
            line("userInfo", n.userInfo.value.minifiedString)
        } else {
            out += "notification: nothing shown (silent push)\n"
        }
        out += "\n"
        func yn(_ b: Bool) -> String { b ? "yes" : "no" }
        out += "extension ran: \(yn(r.extensionRan))   handled: \(yn(r.handled))   expired: \(yn(r.expired))   killed: \(yn(r.killed))   content handler calls: \(r.contentHandlerCalls)\n"
        switch r.image.verdict {
        case .none:
            if let url = skippedImage(r) {
                out += "image: not shown — the push has CIO.push.image (\(url)) but no aps.mutable-content: 1, so iOS never started the extension; no delivered metric either [cio.mutable-content.required]\n"
                out += "  fix: add \"mutable-content\": 1 to aps (pushlab payload --image adds it)\n"
            } else {
                out += "image: none in the push\n"
            }
        case .attached:
            out += "image: attached (\(r.image.bytes ?? 0) bytes)\n"
            for w in r.image.warnings { out += "  warning: \(w)\n" }
        case .dropped:
            // A download cut short by --kill-at was cancelled by the kill, not by the budget.
            if r.killed && r.image.code == "cancelled-at-expiry" {
                out += "image: dropped [cancelled-by-kill] the extension was killed (--kill-at) before the download finished\n"
                out += "  fix: nothing in the image: iOS kills an extension under memory pressure; the SDK's pending row is what recovers the metric\n"
            } else {
                out += "image: dropped [\(r.image.code ?? "")] \(r.image.reason ?? "")\n  fix: \(r.image.fix ?? "")\n"
            }
        }
        let last = r.metric.attempts.last.map { $0.status.map { "HTTP \($0)" } ?? ($0.error ?? "") } ?? ""
        out += "delivered metric: \(r.metric.result.rawValue)" + (last.isEmpty ? "" : " (\(last), \(r.metric.attempts.count) attempt(s))")
            + (r.metric.url.map { "  POST \($0)" } ?? "") + "\n"
        out += "pending row: " + (r.pendingRow.stored ? "stored in the \(r.pendingRow.store.rawValue) store" + (r.pendingRow.removed ? ", removed after the metric was acknowledged" : ", still pending (recovered at next app launch)")
                                                     : "none" + (r.pendingRow.note.map { " (\($0))" } ?? "")) + "\n"
        if let note = r.note { out += "note: \(note)\n" }
        return out
    }
}
