/// What `take` granted: `granted` tokens now (0…requested); when fewer than requested, how long
/// until the rest could be had.
public struct RateGrant: Sendable, Hashable {
    public var granted: Int
    public var retryAfter: Duration
}
