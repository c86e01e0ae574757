import Foundation

/// A seeded, reproducible description of how a server should misbehave: per route, which
/// requests get an error status, extra latency, a dropped stream or connection, a stall, or a
/// GOAWAY after N streams. Plain values only: the gateway emulator and the metrics collector
/// both turn a `FaultDecision` into their own wire behaviour (see `FaultInjector`).
///
/// Two textual forms parse into it (FaultPlanParsing.swift): a JSON file
/// `{"seed": 42, "rules": [{"route": "/v1/track", "status": 503, "p": 0.1, "retry-after": 2}]}`
/// and the compact flag `route=/v1/track,status=503,p=0.1,retry-after=2`. Both use the same
/// field names, so a flag can be pasted into a file and back.
public struct FaultPlan: Sendable, Equatable {
    /// Seeds every random draw. Same seed + same request sequence per route → same decisions.
    public var seed: UInt64
    /// Rules in order. Latency of every firing rule adds up; the first firing rule with an
    /// outcome decides the outcome.
    public var rules: [FaultRule]

    public init(seed: UInt64 = 0, rules: [FaultRule] = []) {
        self.seed = seed
        self.rules = rules
    }

    /// No faults at all.
    public static let none = FaultPlan()
    public var isEmpty: Bool { rules.isEmpty }

    /// Appends the rules of `other` (its seed is ignored: one plan, one seed).
    public func merging(_ other: FaultPlan) -> FaultPlan {
        FaultPlan(seed: seed, rules: rules + other.rules)
    }
}
