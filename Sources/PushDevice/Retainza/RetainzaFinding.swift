import PushCore

/// One thing wrong (or worth knowing) about a Retainza integration, with the troubleshooting
/// fix (docs/specs/retainza.md §10). Codes are stable: docs/retainza.md lists them.
public struct RetainzaFinding: Sendable, Equatable, Codable {
    public enum Severity: String, Sendable, Codable { case error, warning, info }
    public var code: String
    public var severity: Severity
    /// The symptom a team sees.
    public var symptom: String
    public var fix: String

    public init(_ code: String, _ severity: Severity, symptom: String, fix: String) {
        self.code = code
        self.severity = severity
        self.symptom = symptom
        self.fix = fix
    }

    /// Every finding an app profile gives, in the order of the troubleshooting table.
    public static func audit(_ p: RetainzaAppProfile) -> [RetainzaFinding] {
        var out: [RetainzaFinding] = []
        if let error = RetainzaConfigurationError.check(publicKey: p.publicKey, baseURL: p.baseURL) {
            let code: String
            switch error {
            case .secretKey: code = "secret-key"
            case .notAPublicKey: code = "not-a-public-key"
            case .baseURLWithoutVersion: code = "base-url-without-v1"
            }
            out.append(RetainzaFinding(code, .error, symptom: error.reason, fix: error.fix))
        } else {
            let kind = RetainzaContract.classify(key: p.publicKey)
            let env = kind == .live ? "Production: this build reaches real users" : kind == .test ? "Sandbox" : "an unknown environment"
            out.append(RetainzaFinding("key-environment", kind == .otherPublic ? .warning : .info,
                                       symptom: "the key \(RetainzaContract.redacted(key: p.publicKey)) selects \(env)",
                                       fix: "set the key per build configuration (pk_test_ in debug, pk_live_ in release); the aps-environment entitlement is Apple's and must match separately"))
        }
        if p.calls(.handleDeviceToken) {
            out.append(RetainzaFinding("deprecated-handleDeviceToken", .warning,
                                       symptom: "warning \"handleDeviceToken no longer registers\": the raw APNs token is logged and nothing is registered",
                                       fix: "replace RetainzaPush.handleDeviceToken(_:) with Messaging.messaging().apnsToken = token plus RetainzaPush.handleFCMToken(_:) in MessagingDelegate"))
        }
        if !p.calls(.messagingAPNsToken) {
            out.append(RetainzaFinding("missing-Messaging.apnsToken", .error,
                                       symptom: "no FCM token is made: Firebase never gets the APNs token, so nothing is registered and pushes never arrive",
                                       fix: "in didRegisterForRemoteNotificationsWithDeviceToken set Messaging.messaging().apnsToken = token"))
        }
        if !p.calls(.handleFCMToken) {
            out.append(RetainzaFinding("missing-handleFCMToken", .error,
                                       symptom: "device never registered: pushes never arrive",
                                       fix: "call RetainzaPush.handleFCMToken(fcmToken) in messaging(_:didReceiveRegistrationToken:)"))
        }
        if p.userID == nil && !(p.calls(.identify) && p.calls(.registerPushAfterIdentify)) {
            out.append(RetainzaFinding("missing-user-id", .error,
                                       symptom: "token never registers: handleFCMToken throws .missingUserId (userProvider has no id when the token arrives, and registerPush is not called again after identify)",
                                       fix: "call registerPush / handleFCMToken again after identify, with the current token from Messaging.messaging().token()"))
        }
        if !p.calls(.handleOpen) {
            out.append(RetainzaFinding("missing-handleOpen", .error,
                                       symptom: "pushes arrive, opens are zero: taps never reach the SDK",
                                       fix: "call await RetainzaPush.handleOpen(response) in userNotificationCenter(_:didReceive:)"))
        }
        if !p.calls(.handleLaunchOptions) {
            out.append(RetainzaFinding("missing-handleLaunchOptions", .error,
                                       symptom: "cold-start opens are zero: a tap that launches the app never reaches the delegate",
                                       fix: "call RetainzaPush.handleLaunchOptions(launchOptions) in didFinishLaunchingWithOptions"))
        }
        if !p.calls(.handleForeground) {
            out.append(RetainzaFinding("missing-handleForeground", .warning,
                                       symptom: "pushes that arrive while the app is open are not seen by the SDK",
                                       fix: "call await RetainzaPush.handleForeground(notification) in userNotificationCenter(_:willPresent:)"))
        }
        if !p.calls(.handleBackground) {
            out.append(RetainzaFinding("missing-handleBackground", .warning,
                                       symptom: "silent pushes are not seen by the SDK",
                                       fix: "call await RetainzaPush.handleBackground(userInfo) from application(_:didReceiveRemoteNotification:fetchCompletionHandler:)"))
        }
        if p.storage == .memory {
            out.append(RetainzaFinding("memory-only-storage", .warning,
                                       symptom: "events vanish offline: storage nil keeps the queue in memory, so a restart loses it",
                                       fix: "keep the default UserDefaultsStorage() (or pass your own persistent storage)"))
        }
        if !p.calls(.startSession) || !p.calls(.endSession) {
            out.append(RetainzaFinding("missing-sessions", .warning,
                                       symptom: "no sessions in the dashboard: no session_start events and no session_* attributes",
                                       fix: "call startSession() when the app becomes active and endSession() when it enters the background"))
        }
        if p.requireConsent && !p.calls(.setConsent) {
            out.append(RetainzaFinding("consent-not-set", .error,
                                       symptom: "nothing sends at all: requireConsent is on and setConsent(analytics: true) is not called this launch",
                                       fix: "call setConsent(analytics:marketing:) on every launch from your own stored answer (consent is not persisted)"))
        }
        return out
    }
}
