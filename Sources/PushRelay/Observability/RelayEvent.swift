/// What the relay tells webhooks and logs about: a target's final result, and a push whose
/// targets all have one.
enum RelayEvent: Sendable {
    case result(app: String, pushID: PushID, index: Int, target: PushTarget, outcome: TargetOutcome)
    case pushFinished(app: String, status: PushStatus)
}
