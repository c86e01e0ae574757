import Foundation
import PushDevice

/// The extension's timeline as the console draws it: one bar per piece of work (image download,
/// delivered-metric request), marks for the content handler call and expiry, against the budget.
public struct ExtensionBars: Sendable, Codable, Equatable {
    public struct Bar: Sendable, Codable, Equatable {
        public var label: String
        public var startMs: Int64
        public var endMs: Int64
        /// False when the work never finished (budget expired, process killed, still in flight).
        public var finished: Bool
        /// The last timeline line of this work, e.g. `image attached as cio_sdk_… (png, 68 bytes)`.
        public var outcome: String
    }
    public struct Mark: Sendable, Codable, Equatable {
        public var label: String
        public var atMs: Int64
    }

    public var budgetMs: Int64
    public var bars: [Bar]
    public var marks: [Mark]

    /// Reads the bars off the NSE emulator's timeline lines (`NotificationServiceExtension`
    /// writes them; ExtensionBarsTests runs the real extension so a changed line fails there).
    public init(report: NSERunReport) {
        budgetMs = report.budgetMs
        let timeline = report.timeline
        let end = max(report.contentDeliveredAtMs ?? 0, timeline.last?.tMs ?? 0)
        var bars: [Bar] = []
        func bar(_ label: String, startsWith start: String, endsWith ends: [String]) {
            guard let first = timeline.firstIndex(where: { $0.event.hasPrefix(start) }) else { return }
            let last = timeline[first...].lastIndex { e in ends.contains { e.event.hasPrefix($0) } }
            let finishing = last.map { timeline[$0] }
            bars.append(Bar(label: label, startMs: timeline[first].tMs, endMs: finishing?.tMs ?? end,
                            finished: finishing != nil, outcome: finishing?.event ?? "unfinished: \(timeline[first].event)"))
        }
        bar("image download", startsWith: "image download starts", endsWith: ["image downloaded", "image dropped", "image attached"])
        bar("metric request", startsWith: "delivered metric: POST", endsWith: ["delivered metric attempt"])
        self.bars = bars
        var marks: [Mark] = []
        if let handler = timeline.first(where: { $0.event.hasPrefix("content handler called") }) {
            marks.append(Mark(label: "content handler", atMs: handler.tMs))
        }
        if let expired = timeline.first(where: { $0.event.hasPrefix("budget expired") }) {
            marks.append(Mark(label: "expired", atMs: expired.tMs))
        }
        self.marks = marks
    }
}
