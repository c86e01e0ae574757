import Foundation
import Synchronization

/// Applies a `FaultPlan` to a stream of requests and decides, per request, what goes wrong.
///
/// Reproducibility: each rule numbers the requests it considers (1, 2, 3 …) and draws its
/// randomness from `SeededRandom.derived(seed: plan.seed ⊕ rule, index: n)`. A decision thus
/// depends only on the seed, the rule and the request's number *on that rule* — not on how
/// requests of other routes interleave, nor on thread timing. Same seed + same request
/// sequence per route → same decisions.
///
/// Thread safety: `decide` may be called from any thread (a server's event loop, tasks);
/// the counters live in one `Mutex`.
public final class FaultInjector: Sendable {
    public let plan: FaultPlan

    private struct Counters {
        /// How many requests each rule has seen.
        var seen: [Int]
        /// Per rule with `goAwayAfterStreams`: matching streams per live connection id.
        var streamsPerConnection: [Int: [UInt64: Int]] = [:]
    }
    private let counters: Mutex<Counters>

    public init(plan: FaultPlan) {
        self.plan = plan
        counters = Mutex(Counters(seen: Array(repeating: 0, count: plan.rules.count)))
    }

    /// Decides the fate of one request. `connectionID` identifies the connection for
    /// GOAWAY-after-N-streams rules (any stable id; the server's connection id).
    public func decide(method: String, path: String, connectionID: UInt64 = 0) -> FaultDecision {
        var decision = FaultDecision()
        guard !plan.rules.isEmpty else { return decision }
        return counters.withLock { state in
            for (i, rule) in plan.rules.enumerated() where rule.matches(method: method, path: path) {
                state.seen[i] += 1
                let n = state.seen[i]
                var fired = false
                if let limit = rule.goAwayAfterStreams {
                    var perConnection = state.streamsPerConnection[i, default: [:]]
                    let count = perConnection[connectionID, default: 0] + 1
                    // Once the connection is going away, forget it so the table does not grow.
                    perConnection[connectionID] = count >= limit ? nil : count
                    state.streamsPerConnection[i] = perConnection
                    if count >= limit {
                        decision.goAway = true
                        fired = true
                    }
                }
                if rule.latency != nil || rule.outcome != nil || rule.hold != nil, rule.requests?.contains(n) ?? true {
                    var random = SeededRandom.derived(seed: plan.seed ^ (UInt64(i + 1) &* 0x9E37_79B9_7F4A_7C15), index: UInt64(n))
                    if rule.probability >= 1 || random.chance(rule.probability) {
                        fired = true
                        if let latency = rule.latency { decision.delay += latency.sample(&random) }
                        if let hold = rule.hold { decision.holds.append(hold) }
                        if decision.outcome == nil, let outcome = rule.outcome { decision.outcome = outcome }
                    }
                }
                if fired { decision.firedRules.append(i) }
            }
            return decision
        }
    }
}
