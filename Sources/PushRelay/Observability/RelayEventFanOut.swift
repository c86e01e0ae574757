/// Where the relay's events go: each app's webhook (`WebhookDispatcher`, which drops the events
/// of apps without one) and, for a target's result, the `RelayObserver` (the console's push log).
final class RelayEventFanOut: Sendable {
    private let webhooks: WebhookDispatcher
    private let observer: (any RelayObserver)?
    /// False when nothing listens for `.result` events (no webhook, no observer): the recorder
    /// does not make them.
    let wantsResults: Bool

    init(webhooks: WebhookDispatcher, observer: (any RelayObserver)?, apps: [RelayApp]) {
        self.webhooks = webhooks
        self.observer = observer
        wantsResults = observer != nil || apps.contains { $0.webhook != nil }
    }

    func publish(_ event: RelayEvent) {
        webhooks.record(event)
        if let observer, case .result(let app, let pushID, let index, let target, let outcome, let content) = event {
            observer.finished(RelayTargetResult(pushID: pushID, app: app, index: index, target: target,
                                                outcome: outcome, content: RelayPushContent.decode(content)))
        }
    }
}
