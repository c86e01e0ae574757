/// The integration calls an app makes (docs/specs/retainza.md §4, §7, §8), as an app profile
/// lists them in `calls`. What the app does not list it does not call.
public enum RetainzaIntegrationCall: String, CaseIterable, Codable, Sendable {
    /// `RetainzaPush.handleLaunchOptions(launchOptions)` in didFinishLaunchingWithOptions.
    case handleLaunchOptions
    /// `RetainzaPush.handleOpen(response)` in `didReceive`.
    case handleOpen
    /// `RetainzaPush.handleForeground(notification)` in `willPresent`.
    case handleForeground
    /// `RetainzaPush.handleBackground(userInfo)` for silent pushes.
    case handleBackground
    /// `Messaging.messaging().apnsToken = token`: hands the APNs token to Firebase.
    case messagingAPNsToken = "Messaging.apnsToken"
    /// `RetainzaPush.handleFCMToken(fcmToken)` in `MessagingDelegate`.
    case handleFCMToken
    /// The deprecated `RetainzaPush.handleDeviceToken(apnsToken)`.
    case handleDeviceToken
    /// `identify(_:)` once the user signs in (after the token arrived).
    case identify
    /// `registerPush` / `handleFCMToken` again after `identify`, with the current token.
    case registerPushAfterIdentify
    /// `startSession()` / `endSession()` from the lifecycle hooks.
    case startSession
    case endSession
    /// `setConsent(analytics: true, …)` on every launch (needed with `requireConsent`).
    case setConsent
}
