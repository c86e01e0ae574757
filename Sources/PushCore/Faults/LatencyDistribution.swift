import Foundation

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
