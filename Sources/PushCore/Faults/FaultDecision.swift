import Foundation

/// What a firing rule makes of the answer.
public enum FaultOutcome: Sendable, Equatable {
    /// Answer with this status instead; `retryAfter` (seconds) becomes a Retry-After header;
    /// `reason` is for the server to put in its error body (e.g. an APNs reason).
    case status(Int, retryAfter: Int?, reason: String?)
    /// Abort: reset the stream (HTTP/1.1: close the connection) or close the whole connection.
    case drop(DropScope)
    /// Hold the answer this long before giving it (clients see a hung request).
    case stall(Duration)
}

public enum DropScope: String, Sendable, Equatable, CaseIterable {
    case stream
    case connection
}

/// What a server should do with one request, decided by `FaultInjector.decide`.
public struct FaultDecision: Sendable, Equatable {
    /// Wait this long before answering (sum of the latency of every firing rule).
    public var delay: Duration = .zero
    /// The answer's fate; nil: answer normally.
    public var outcome: FaultOutcome?
    /// Send GOAWAY on this connection; the request itself is still answered.
    public var goAway: Bool = false
    /// Indexes (into `FaultPlan.rules`) of the rules that fired, for logs and tests.
    public var firedRules: [Int] = []
    /// The firing rules' holds: the answer waits (after `delay`) until each has returned.
    public var holds: [FaultHold] = []

    public init(delay: Duration = .zero, outcome: FaultOutcome? = nil, goAway: Bool = false, firedRules: [Int] = []) {
        self.delay = delay
        self.outcome = outcome
        self.goAway = goAway
        self.firedRules = firedRules
    }

    /// Nothing to do: answer at once, normally.
    public var isClean: Bool { delay == .zero && outcome == nil && !goAway && holds.isEmpty }
}
