/// The server's rapid-reset defence (CVE-2023-44487): a token bucket over RST_STREAM frames
/// that cancel a stream the server is still working on (request dispatched, answer not yet
/// fully sent). nghttp2's own guard is switched off in `HTTP2Session` because it also counts
/// libcurl 7.88's redundant RST_STREAM after every complete body-less response; those arrive
/// for streams already closed on our side, so this budget never sees them.
/// Defaults follow nghttp2's: a burst of 1000, refilled at 33 per second.
struct StreamResetBudget {
    let burst: Double
    let perSecond: Double
    private var tokens: Double
    private var lastRefill: ContinuousClock.Instant

    init(burst: Int = 1000, perSecond: Double = 33, now: ContinuousClock.Instant = .now) {
        self.burst = Double(burst)
        self.perSecond = perSecond
        tokens = Double(burst)
        lastRefill = now
    }

    /// Spends one token for a cancelled in-flight stream; false once the peer is over budget.
    mutating func spend(now: ContinuousClock.Instant = .now) -> Bool {
        let elapsed = now - lastRefill
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * perSecond)
        lastRefill = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
