/// What the relay tells webhooks and logs about: a target's final result, and a push whose
/// targets all have one.
enum RelayEvent: Sendable {
    /// `content` is the push as submitted (for a `RelayObserver`; webhooks do not send it).
    case result(app: String, pushID: PushID, index: Int, target: PushTarget, outcome: TargetOutcome, content: [UInt8])
    case pushFinished(app: String, status: PushStatus)
}
