/// Watches the relay's pushes: each one as it is durably queued, and each target as it gets its
/// final result (`pushlab relay --console` feeds the console's push log from it). Called on the
/// relay's request and worker tasks, so it must return quickly.
public protocol RelayObserver: Sendable {
    func accepted(_ push: RelayAcceptedPush)
    func finished(_ result: RelayTargetResult)
}
