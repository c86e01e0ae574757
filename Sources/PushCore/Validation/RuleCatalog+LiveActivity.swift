import Foundation

// Live Activity rules beyond the basics (docs/specs/apns.md "Per-device Live Activity pushes") and
// Customer.io Live notification rules (docs/specs/device-side.md §7). Listed in
// `RuleCatalog.liveActivity` and `RuleCatalog.cio`.
extension RuleCatalog {
    public static let liveActivityStartAlert = ValidationRule("liveactivity.start.alert", .error, .ios,
        "A start event (push-to-start) needs an alert with a title and a body; APNSwift, hapns and Customer.io's start API all require it.",
        fix: "add \"alert\": {\"title\": \"…\", \"body\": \"…\"} to the start push")
    public static let liveActivityInputPushStartOnly = ValidationRule("liveactivity.input-push.start-only", .error, .ios,
        "input-push-token and input-push-channel only mean something on a start event; iOS ignores them on update and end.",
        fix: "remove input-push-token / input-push-channel, or send them with \"event\": \"start\"")
    public static let liveActivityInputPushToken = ValidationRule("liveactivity.input-push-token.value", .error, .ios,
        "input-push-token is the number 1 (ask iOS for the started activity's update token).",
        fix: "write \"input-push-token\": 1")
    public static let liveActivityContentStateSize = ValidationRule("liveactivity.content-state.size", .error, .ios,
        "An activity's content-state is capped at 4 KB (4096 bytes encoded); a larger update is not applied.",
        fix: "send less in content-state (ids and numbers; the widget looks the rest up)")
    public static let liveActivityDismissalDateEndOnly = ValidationRule("liveactivity.dismissal-date.end-only", .warning, .lint,
        "dismissal-date is read with the end event; on start or update it has no effect.",
        fix: "send dismissal-date with \"event\": \"end\", or remove it")
    public static let liveActivityStaleBeforeTimestamp = ValidationRule("liveactivity.stale-date.past", .warning, .lint,
        "stale-date is not after timestamp: the activity turns stale the moment the update is applied.",
        fix: "set stale-date later than timestamp (UNIX seconds), e.g. timestamp + 900")

    // MARK: Customer.io Live notifications

    public static let cioLiveMetadataType = ValidationRule("cio.live.metadata.type", .error, .sdk,
        "content-state.cioMetadata must be an object whose deliveryId, deliveryToken and deepLink are strings; otherwise the ContentState fails to decode and the update is dropped.",
        fix: "write \"cioMetadata\": {\"deliveryId\": \"…\", \"deliveryToken\": \"…\", \"deepLink\": \"…\"}")
    public static let cioLiveMetadataTokenOnly = ValidationRule("cio.live.metadata.token-only", .warning, .sdk,
        "cioMetadata has a deliveryToken but no deliveryId: the SDK can report neither delivered nor opened for this update.",
        fix: "add the deliveryId Customer.io issued beside the token")
    public static let cioLiveDeepLink = ValidationRule("cio.live.deep-link.url", .error, .sdk,
        "cioMetadata.deepLink must be an absolute URL with a scheme; the widget-URL handler returns nothing to route otherwise.",
        fix: "use a full URL such as myapp://orders/42 or https://example.com/orders/42")

    static let liveActivityMore = [liveActivityStartAlert, liveActivityInputPushStartOnly, liveActivityInputPushToken,
                                   liveActivityContentStateSize, liveActivityDismissalDateEndOnly, liveActivityStaleBeforeTimestamp]
    static let cioLive = [cioLiveMetadataType, cioLiveMetadataTokenOnly, cioLiveDeepLink]
}
