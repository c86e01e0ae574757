import Foundation
import PushCore
import PushDevice
import PushMetrics
import PushSend

/// One step of the demo: what it did, whether it did what it should, and why not.
public struct DemoStep: Sendable, Codable {
    public var title: String
    public var passed: Bool
    public var details: [String]
    public var elapsedMs: Int
}

/// The demo's result: every step and the collector's report.
public struct DemoReport: Sendable, Codable {
    public var steps: [DemoStep]
    public var report: MetricsReport?
    public var passed: Bool { !steps.isEmpty && steps.allSatisfy(\.passed) }
}
