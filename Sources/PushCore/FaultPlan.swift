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

/// One rule: which requests it considers, when it fires, and what it does when it fires.
public struct FaultRule: Sendable, Equatable {
    /// Which paths the rule considers: `*` (all), an exact path, a pattern with `{name}`
    /// segments (`/3/device/{token}`), or a prefix ending in `*` (`/v1/*`).
    public var route: String
    /// Only this method (upper case), or every method when nil.
    public var method: String?
    /// Probability in [0, 1] that the rule fires on a request inside `requests`. Default 1.
    public var probability: Double
    /// Schedule: only the n-th requests this rule has seen (1-based, inclusive). nil: all.
    public var requests: RequestWindow?
    /// Extra time before the answer.
    public var latency: LatencyDistribution?
    /// What the answer becomes; nil leaves the answer alone (a latency-only rule).
    public var outcome: FaultOutcome?
    /// Send GOAWAY on a connection once it has carried this many requests matching the rule.
    public var goAwayAfterStreams: Int?

    public init(route: String = "*", method: String? = nil, probability: Double = 1, requests: RequestWindow? = nil,
                latency: LatencyDistribution? = nil, outcome: FaultOutcome? = nil, goAwayAfterStreams: Int? = nil) {
        self.route = route
        self.method = method?.uppercased()
        self.probability = probability
        self.requests = requests
        self.latency = latency
        self.outcome = outcome
        self.goAwayAfterStreams = goAwayAfterStreams
    }

    /// True when the rule considers a request with this method and path.
    public func matches(method: String, path: String) -> Bool {
        if let m = self.method, m != method.uppercased() { return false }
        return FaultRule.routeMatches(route, path)
    }

    static func routeMatches(_ route: String, _ path: String) -> Bool {
        if route == "*" { return true }
        if route.hasSuffix("*") { return path.hasPrefix(route.dropLast()) }
        guard route.contains("{") else { return route == path }
        let r = route.split(separator: "/", omittingEmptySubsequences: false)
        let p = path.split(separator: "/", omittingEmptySubsequences: false)
        guard r.count == p.count else { return false }
        for (a, b) in zip(r, p) {
            if a.hasPrefix("{") && a.hasSuffix("}") { if b.isEmpty { return false } } else if a != b { return false }
        }
        return true
    }
}

/// The n-th requests a rule applies to, 1-based and inclusive; `upper == nil` is open-ended.
public struct RequestWindow: Sendable, Equatable {
    public var lower: Int
    public var upper: Int?
    public init(lower: Int, upper: Int?) {
        self.lower = lower
        self.upper = upper
    }
    public func contains(_ n: Int) -> Bool { n >= lower && (upper.map { n <= $0 } ?? true) }
    /// `100-200`, `100-` or `7`.
    public var text: String {
        if let upper { return upper == lower ? "\(lower)" : "\(lower)-\(upper)" }
        return "\(lower)-"
    }
}

/// How long an answer is held back.
public enum LatencyDistribution: Sendable, Equatable {
    case fixed(Duration)
    /// Uniform between the two bounds.
    case uniform(Duration, Duration)
    /// Normal around `mean` with standard deviation `deviation`, clipped at zero (Box–Muller).
    case normal(mean: Duration, deviation: Duration)

    /// One draw; consumes two values of `random` at most.
    public func sample(_ random: inout SeededRandom) -> Duration {
        switch self {
        case .fixed(let d):
            return d
        case .uniform(let a, let b):
            let lo = a.seconds, hi = b.seconds
            return .seconds(lo + (hi - lo) * random.unit())
        case .normal(let mean, let deviation):
            let u1 = max(random.unit(), .leastNonzeroMagnitude), u2 = random.unit()
            let z = (-2 * Foundation.log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            return .seconds(max(0, mean.seconds + z * deviation.seconds))
        }
    }

    /// `fixed:200ms`, `uniform:50ms:300ms`, `normal:200ms:50ms`.
    public var text: String {
        switch self {
        case .fixed(let d): return "fixed:\(d.compactText)"
        case .uniform(let a, let b): return "uniform:\(a.compactText):\(b.compactText)"
        case .normal(let m, let s): return "normal:\(m.compactText):\(s.compactText)"
        }
    }
}

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
    /// After answering, send GOAWAY on this connection.
    public var goAway: Bool = false
    /// Indexes (into `FaultPlan.rules`) of the rules that fired, for logs and tests.
    public var firedRules: [Int] = []

    public init(delay: Duration = .zero, outcome: FaultOutcome? = nil, goAway: Bool = false, firedRules: [Int] = []) {
        self.delay = delay
        self.outcome = outcome
        self.goAway = goAway
        self.firedRules = firedRules
    }

    /// Nothing to do: answer at once, normally.
    public var isClean: Bool { delay == .zero && outcome == nil && !goAway }
}

extension Duration {
    /// Seconds as a Double.
    public var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }

    /// The shortest exact text among `250ms`, `2s`, `1.5s` (for plans written back out).
    public var compactText: String {
        let ms = seconds * 1000
        if ms.rounded() == ms, ms.truncatingRemainder(dividingBy: 1000) != 0 || ms == 0 { return "\(Int(ms))ms" }
        let s = seconds
        if s.rounded() == s { return "\(Int(s))s" }
        return "\(s)s"
    }
}
