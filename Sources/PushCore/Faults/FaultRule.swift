import Foundation

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
    /// Hold the answer (after any latency) until this returns: the code that built the plan
    /// decides when a request stops being in flight. No flag or JSON form.
    public var hold: FaultHold?

    public init(route: String = "*", method: String? = nil, probability: Double = 1, requests: RequestWindow? = nil,
                latency: LatencyDistribution? = nil, outcome: FaultOutcome? = nil, goAwayAfterStreams: Int? = nil,
                hold: FaultHold? = nil) {
        self.route = route
        self.method = method?.uppercased()
        self.probability = probability
        self.requests = requests
        self.latency = latency
        self.outcome = outcome
        self.goAwayAfterStreams = goAwayAfterStreams
        self.hold = hold
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

/// An answer held until its owner lets it go (`FaultRule.hold`): a test waits for "this request
/// is in flight" as an event and ends it when it has checked what it needs, instead of giving
/// the request a latency and racing it. Two holds are equal when they are the same hold.
public struct FaultHold: Sendable, Equatable {
    private let token = Token()
    /// Returns when the answer may go.
    public let wait: @Sendable () async -> Void

    public init(_ wait: @escaping @Sendable () async -> Void) { self.wait = wait }

    public static func == (a: FaultHold, b: FaultHold) -> Bool { a.token === b.token }

    private final class Token: Sendable {}
}
