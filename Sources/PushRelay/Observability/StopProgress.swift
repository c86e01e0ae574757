import PushHTTP

/// How far a graceful stop has come (`Relay.stop`): when it was asked for and the step it is
/// in since when, for the state dump and the drain bound's message (docs/relay.md "Stopping a
/// node").
final class StopProgress: Sendable {
    private struct State {
        var asked: ContinuousClock.Instant?
        var step = ""
        var stepSince = ContinuousClock.now
    }
    private let state = SanitizerVisibleMutex(State())

    /// The stop moved on to `step` (the first call marks when it was asked for).
    func enter(_ step: String) {
        let now = ContinuousClock.now
        state.withLock { s in
            if s.asked == nil { s.asked = now }
            s.step = step
            s.stepSince = now
        }
    }

    /// One line: "not asked", or since when and the step it waits in.
    func line(now: ContinuousClock.Instant) -> String {
        state.withLock { s in
            guard let asked = s.asked else { return "not asked (the node is running)" }
            return "asked \(RelayStateText.seconds(now - asked)) ago; now \(s.step) (for \(RelayStateText.seconds(now - s.stepSince)))"
        }
    }
}

/// Formatting shared by the state dump's lines.
enum RelayStateText {
    /// "0.3 s", "12.0 s".
    static func seconds(_ duration: Duration) -> String {
        let (whole, atto) = duration.components
        let tenths = max(0, whole * 10 + atto / 100_000_000_000_000_000)
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
