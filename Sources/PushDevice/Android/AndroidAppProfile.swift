import Foundation
import PushCore

/// The emulated Android app (samples in `payloads/apps/android-*.json`). Unknown keys are
/// rejected so a typo never silently falls back to a default.
public struct AndroidAppProfile: Codable, Sendable, Equatable {
    public var package: String
    public var label: String
    public var sdkMode: AndroidSDKMode
    public var sdkVersion: String
    public var targetSdk: Int
    /// The phone's API level (34 = Android 14).
    public var deviceApiLevel: Int
    public var cdpApiKey: String
    public var region: MetricsRegion
    /// Overrides the region's host, e.g. `https://127.0.0.1:8443` for a local collector.
    public var metricsBaseURL: String?
    public var autoTrackPushEvents: Bool
    /// Android 13+: the POST_NOTIFICATIONS runtime permission.
    public var postNotificationsGranted: Bool
    /// Network security config: plain-http images allowed (off by default from targetSdk 28).
    public var cleartextTrafficPermitted: Bool
    /// Channels the app has created before the push arrives.
    public var channels: [AndroidChannel]
    /// Manifest `io.customer.notification_channel_id`; nil = the package name.
    public var cioChannelId: String?
    public var cioChannelImportance: Int?
    /// Manifest `com.google.firebase.messaging.default_notification_channel_id`.
    public var fcmDefaultChannelId: String?
    /// Other `FirebaseMessagingService`s (react-native-firebase, FlutterFire, …).
    public var messagingServices: [AndroidMessagingService]
    /// WorkManager initialised in the process (else the SDK's direct-HTTP fallback).
    public var workManagerAvailable: Bool
    public var launcherActivity: String
    public var activities: [AndroidActivity]
    /// App Link domains the phone verified for this app.
    public var verifiedDomains: [String]
    /// Links the app's `onNotificationClicked` callback handles (returns non-null); `*` suffix wildcard.
    public var callbackHandles: [String]?
    public var pushClickBehavior: PushClickBehavior
    public var clickHandler: AndroidClickHandler
    public var installedApps: [AndroidInstalledApp]

    public init(package: String, label: String = "Pushlab", sdkMode: AndroidSDKMode = .cioAndroid, sdkVersion: String = "4.19.0",
                targetSdk: Int = 35, deviceApiLevel: Int = 34, cdpApiKey: String, region: MetricsRegion = .us,
                metricsBaseURL: String? = nil, autoTrackPushEvents: Bool = true, postNotificationsGranted: Bool = true,
                cleartextTrafficPermitted: Bool = false, channels: [AndroidChannel] = [], cioChannelId: String? = nil,
                cioChannelImportance: Int? = nil, fcmDefaultChannelId: String? = nil, messagingServices: [AndroidMessagingService] = [],
                workManagerAvailable: Bool = true, launcherActivity: String = "MainActivity",
                activities: [AndroidActivity] = [AndroidActivity(name: "MainActivity")], verifiedDomains: [String] = [],
                callbackHandles: [String]? = nil, pushClickBehavior: PushClickBehavior = .activityPreventRestart,
                clickHandler: AndroidClickHandler = .receiverActivity, installedApps: [AndroidInstalledApp] = []) {
        self.package = package
        self.label = label
        self.sdkMode = sdkMode
        self.sdkVersion = sdkVersion
        self.targetSdk = targetSdk
        self.deviceApiLevel = deviceApiLevel
        self.cdpApiKey = cdpApiKey
        self.region = region
        self.metricsBaseURL = metricsBaseURL
        self.autoTrackPushEvents = autoTrackPushEvents
        self.postNotificationsGranted = postNotificationsGranted
        self.cleartextTrafficPermitted = cleartextTrafficPermitted
        self.channels = channels
        self.cioChannelId = cioChannelId
        self.cioChannelImportance = cioChannelImportance
        self.fcmDefaultChannelId = fcmDefaultChannelId
        self.messagingServices = messagingServices
        self.workManagerAvailable = workManagerAvailable
        self.launcherActivity = launcherActivity
        self.activities = activities
        self.verifiedDomains = verifiedDomains
        self.callbackHandles = callbackHandles
        self.pushClickBehavior = pushClickBehavior
        self.clickHandler = clickHandler
        self.installedApps = installedApps
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case package, label, sdkMode, sdkVersion, targetSdk, deviceApiLevel, cdpApiKey, region, metricsBaseURL
        case autoTrackPushEvents, postNotificationsGranted, cleartextTrafficPermitted, channels, cioChannelId
        case cioChannelImportance, fcmDefaultChannelId, messagingServices, workManagerAvailable, launcherActivity
        case activities, verifiedDomains, callbackHandles, pushClickBehavior, clickHandler, installedApps
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = AndroidAppProfile(package: "p", cdpApiKey: "")
        package = try c.decode(String.self, forKey: .package)
        label = try c.decodeIfPresent(String.self, forKey: .label) ?? d.label
        sdkMode = try c.decodeIfPresent(AndroidSDKMode.self, forKey: .sdkMode) ?? d.sdkMode
        sdkVersion = try c.decodeIfPresent(String.self, forKey: .sdkVersion) ?? d.sdkVersion
        targetSdk = try c.decodeIfPresent(Int.self, forKey: .targetSdk) ?? d.targetSdk
        deviceApiLevel = try c.decodeIfPresent(Int.self, forKey: .deviceApiLevel) ?? d.deviceApiLevel
        cdpApiKey = try c.decodeIfPresent(String.self, forKey: .cdpApiKey) ?? ""
        region = try c.decodeIfPresent(MetricsRegion.self, forKey: .region) ?? .us
        metricsBaseURL = try c.decodeIfPresent(String.self, forKey: .metricsBaseURL)
        autoTrackPushEvents = try c.decodeIfPresent(Bool.self, forKey: .autoTrackPushEvents) ?? true
        postNotificationsGranted = try c.decodeIfPresent(Bool.self, forKey: .postNotificationsGranted) ?? true
        cleartextTrafficPermitted = try c.decodeIfPresent(Bool.self, forKey: .cleartextTrafficPermitted) ?? false
        channels = try c.decodeIfPresent([AndroidChannel].self, forKey: .channels) ?? []
        cioChannelId = try c.decodeIfPresent(String.self, forKey: .cioChannelId)
        cioChannelImportance = try c.decodeIfPresent(Int.self, forKey: .cioChannelImportance)
        fcmDefaultChannelId = try c.decodeIfPresent(String.self, forKey: .fcmDefaultChannelId)
        messagingServices = try c.decodeIfPresent([AndroidMessagingService].self, forKey: .messagingServices) ?? []
        workManagerAvailable = try c.decodeIfPresent(Bool.self, forKey: .workManagerAvailable) ?? true
        launcherActivity = try c.decodeIfPresent(String.self, forKey: .launcherActivity) ?? d.launcherActivity
        activities = try c.decodeIfPresent([AndroidActivity].self, forKey: .activities) ?? d.activities
        verifiedDomains = try c.decodeIfPresent([String].self, forKey: .verifiedDomains) ?? []
        callbackHandles = try c.decodeIfPresent([String].self, forKey: .callbackHandles)
        pushClickBehavior = try c.decodeIfPresent(PushClickBehavior.self, forKey: .pushClickBehavior) ?? .activityPreventRestart
        clickHandler = try c.decodeIfPresent(AndroidClickHandler.self, forKey: .clickHandler) ?? .receiverActivity
        installedApps = try c.decodeIfPresent([AndroidInstalledApp].self, forKey: .installedApps) ?? []
    }

    /// The channel the SDK draws on: manifest `io.customer.notification_channel_id`, else the package name.
    public var cioChannel: String { cioChannelId ?? package }

    public func activity(named name: String) -> AndroidActivity? { activities.first { $0.name == name } }

    /// The metric host: the profile's base URL, else the region's CDP host.
    public var metricsHost: String {
        if let base = metricsBaseURL { return base.hasSuffix("/") ? String(base.dropLast()) : base }
        return region == .eu ? "https://cdp-eu.customer.io" : "https://cdp.customer.io"
    }

    public var userAgent: String { AndroidSDKContract.userAgent(sdkVersion: sdkVersion) }
}

// MARK: - Loading and checks

extension AndroidAppProfile {
    /// Reads and checks a profile file. Errors name the file and the JSON pointer.
    public static func load(path: String) throws(AppProfileError) -> AndroidAppProfile {
        let data = try AppProfileError.contents(of: path)
        return try decode(Array(data), source: path)
    }

    public static func decode(_ bytes: [UInt8], source: String = "android app profile") throws(AppProfileError) -> AndroidAppProfile {
        let profile: AndroidAppProfile
        do {
            profile = try JSONDecoder().decode(AndroidAppProfile.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw AndroidAppProfile.profileError(error, source: source)
        } catch {
            throw .malformedJSON(source: source, detail: "\(error)")
        }
        try profile.check(source: source)
        return profile
    }

    /// Cross-field rules Codable cannot express.
    public func check(source: String = "android app profile") throws(AppProfileError) {
        if package.isEmpty { throw .invalidValue(source: source, pointer: "/package", detail: "must not be empty") }
        if cdpApiKey.isEmpty { throw .missingField(source: source, pointer: "/cdpApiKey", why: "the SDK authenticates its metrics with the CDP API key") }
        if let base = metricsBaseURL {
            guard let url = URL(string: base), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw .invalidValue(source: source, pointer: "/metricsBaseURL", detail: "'\(base)' is not an http(s) URL like https://127.0.0.1:8443")
            }
        }
        if activity(named: launcherActivity) == nil {
            throw .invalidValue(source: source, pointer: "/launcherActivity",
                                detail: "'\(launcherActivity)' is not in /activities (names: \(activities.map(\.name).joined(separator: ", ")))")
        }
        for (i, a) in activities.enumerated() {
            if let parent = a.parent, activity(named: parent) == nil {
                throw .invalidValue(source: source, pointer: "/activities/\(i)/parent", detail: "'\(parent)' is not in /activities")
            }
        }
        if !(1...40).contains(targetSdk) { throw .invalidValue(source: source, pointer: "/targetSdk", detail: "must be an API level such as 35") }
        if !(21...40).contains(deviceApiLevel) { throw .invalidValue(source: source, pointer: "/deviceApiLevel", detail: "must be an API level from 21 (Android 5) up, such as 34") }
    }

    static func profileError(_ error: DecodingError, source: String) -> AppProfileError {
        if case .dataCorrupted(let ctx) = error, let key = ctx.codingPath.last?.stringValue {
            let allowed: [String: [String]] = [
                "sdkMode": AndroidSDKMode.allCases.map(\.rawValue),
                "pushClickBehavior": PushClickBehavior.allCases.map(\.rawValue),
                "clickHandler": AndroidClickHandler.allCases.map(\.rawValue),
                "launchMode": AndroidActivity.LaunchMode.allCases.map(\.rawValue),
            ]
            if let values = allowed[key] {
                let pointer = "/" + ctx.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
                return .invalidValue(source: source, pointer: pointer, detail: "must be one of: \(values.joined(separator: ", "))")
            }
        }
        return AppProfileError.from(error, source: source)
    }
}

private struct UnknownKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Rejects keys the type does not know, naming the allowed ones.
func rejectUnknownKeys(_ decoder: Decoder, known: [String]) throws {
    let all = try decoder.container(keyedBy: UnknownKey.self)
    if let unknown = all.allKeys.first(where: { !known.contains($0.stringValue) }) {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [unknown],
                                                debugDescription: "unknown key; known keys: \(known.sorted().joined(separator: ", "))"))
    }
}
