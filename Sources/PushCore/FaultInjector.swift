import Foundation

/// Applies a `FaultPlan` to a stream of requests and decides, per request, what goes wrong.
///
/// Reproducibility: each rule numbers the requests it considers (1, 2, 3 …) and draws its
/// randomness from `SeededRandom.derived(seed: plan.seed ⊕ rule, index: n)`. A decision thus
/// depends only on the seed, the rule and the request's number *on that rule* — not on how
/// requests of other routes interleave, nor on thread timing. Same seed + same request
/// sequence per route → same decisions.
///
/// Thread safety: `decide` may be called from any thread (a server's event loop, tasks);
/// the counters are protected by `lock`.
public final class FaultInjector: @unchecked Sendable {
    public let plan: FaultPlan
    // Protected by `lock`: how many requests each rule has seen; per rule with
    // `goAwayAfterStreams`, matching streams per live connection id.
    private var seen: [Int]
    private var streamsPerConnection: [Int: [UInt64: Int]] = [:]
    private let lock = NSLock()

    public init(plan: FaultPlan) {
        self.plan = plan
        seen = Array(repeating: 0, count: plan.rules.count)
    }

    /// Decides the fate of one request. `connectionID` identifies the connection for
    /// GOAWAY-after-N-streams rules (any stable id; the server's connection id).
    public func decide(method: String, path: String, connectionID: UInt64 = 0) -> FaultDecision {
        var decision = FaultDecision()
        guard !plan.rules.isEmpty else { return decision }
        lock.lock()
        defer { lock.unlock() }
        for (i, rule) in plan.rules.enumerated() where rule.matches(method: method, path: path) {
            seen[i] += 1
            let n = seen[i]
            var fired = false
            if let limit = rule.goAwayAfterStreams {
                var perConnection = streamsPerConnection[i, default: [:]]
                let count = perConnection[connectionID, default: 0] + 1
                // Once the connection is going away, forget it so the table does not grow.
                perConnection[connectionID] = count >= limit ? nil : count
                streamsPerConnection[i] = perConnection
                if count >= limit {
                    decision.goAway = true
                    fired = true
                }
            }
            if rule.latency != nil || rule.outcome != nil, rule.requests?.contains(n) ?? true {
                var random = SeededRandom.derived(seed: plan.seed ^ (UInt64(i + 1) &* 0x9E37_79B9_7F4A_7C15), index: UInt64(n))
                if rule.probability >= 1 || random.chance(rule.probability) {
                    fired = true
                    if let latency = rule.latency { decision.delay += latency.sample(&random) }
                    if decision.outcome == nil, let outcome = rule.outcome { decision.outcome = outcome }
                }
            }
            if fired { decision.firedRules.append(i) }
        }
        return decision
    }

    /// How many requests rule `index` has considered so far.
    public func requestsSeen(byRule index: Int) -> Int { lock.withLock { seen[index] } }
}
