/// A small, fast, seedable random source (SplitMix64). Same seed, same sequence, on every
/// machine — what the simulator and fault plans need to be reproducible.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// SplitMix64's step: the state advances by this constant per value.
    public static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    public mutating func next() -> UInt64 {
        state &+= Self.increment
        return Self.mix(state)
    }

    /// SplitMix64's output function: the value for a given state. A generator shared between
    /// threads can advance one atomic state and mix it (see `RandomUUIDSource`).
    @inline(__always)
    public static func mix(_ state: UInt64) -> UInt64 {
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { p > 0 && unit() < p }

    /// A generator for a sub-stream (e.g. one per push), independent of how many values the
    /// parent has drawn since: derive it from the parent seed and a stable index.
    public static func derived(seed: UInt64, index: UInt64) -> SeededRandom {
        var g = SeededRandom(seed: seed ^ (index &* 0xD6E8_FEB8_6659_FD93))
        _ = g.next()
        return g
    }
}
