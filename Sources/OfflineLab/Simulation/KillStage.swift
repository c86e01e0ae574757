import Foundation
import PushCore
import PushDevice

/// Where an extension dies relative to its `delivered` metric (docs/specs/device-side.md §2, §4).
public enum KillStage: String, Sendable, Codable, CaseIterable {
    /// After the pending row was written, before the metric left the phone: the collector
    /// never hears of it; only recovery can bring it back.
    case beforeSend = "before-send"
    /// The metric reached the collector but the extension died before the answer, so its row
    /// was never removed: recovery sends it again (the duplicate case of §4).
    case inFlight = "in-flight"
    /// Half and half, by the seed.
    case mixed
}
