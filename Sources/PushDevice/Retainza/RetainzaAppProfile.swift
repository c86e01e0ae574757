import Foundation
import PushCore

/// An app that embeds the Retainza iOS SDK (`"sdkMode": "retainza"`, sample
/// `payloads/apps/retainza-demo.json`, keys in docs/retainza.md). Unknown keys are rejected with
/// their JSON pointer. A profile that decodes may still not start (an `sk_` key,
/// a base URL without `/v1`): `RetainzaConfigurationError` says why, as the SDK would.
public struct RetainzaAppProfile: Sendable, Equatable {
    public var bundleID: String
    public var publicKey: String
    public var baseURL: String
    public var requireConsent: Bool
    public var maxQueuedEvents: Int
    public var sessionTimeoutMs: Int
    public var storage: RetainzaStorageKind
    /// The calls the app makes; see `RetainzaIntegrationCall`.
    public var calls: Set<RetainzaIntegrationCall>
    /// What the app's `userProvider` returns (nil: no signed-in user).
    public var userID: String?
    /// The id the app passes to `identify` when it calls it (at sign-in, after the token arrived).
    public var identifyUserID: String
    /// The consent the app passes to `setConsent` each launch, when it calls it.
    public var consentMarketing: Bool
    /// The device's tokens: Firebase turns the APNs token into the FCM token.
    public var apnsToken: String
    public var fcmToken: String
    public var firebaseProject: String
    /// `allowRuntimeBaseURL` (default: `debug`, which is off): `setBaseURL(_:)` and a stored
    /// override (`engage.baseUrl.v1`) may redirect traffic (docs/specs/retainza.md §2).
    public var allowRuntimeBaseURL: Bool
    /// Route overrides for the modelled ingest API (docs/specs/retainza.md §9).
    public var routes: RetainzaRoutes

    public static let keys: [String] = ["sdkMode", "bundleId", "publicKey", "baseURL", "requireConsent", "maxQueuedEvents",
                                        "sessionTimeoutMs", "storage", "calls", "userId", "identifyUserId", "consentMarketing", "apnsToken",
                                        "fcmToken", "firebaseProject", "routes", "allowRuntimeBaseURL"]

    public init(bundleID: String = "io.pushlab.retainza", publicKey: String, baseURL: String = RetainzaContract.defaultBaseURL,
                requireConsent: Bool = false, maxQueuedEvents: Int = RetainzaContract.defaultMaxQueuedEvents,
                sessionTimeoutMs: Int = RetainzaContract.defaultSessionTimeoutMs, storage: RetainzaStorageKind = .userDefaults,
                calls: Set<RetainzaIntegrationCall> = RetainzaAppProfile.fullIntegration, userID: String? = "user-123",
                identifyUserID: String = "user-123", consentMarketing: Bool = false,
                apnsToken: String = "7a1c3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d",
                fcmToken: String = RetainzaAppProfile.sampleFCMToken, firebaseProject: String = "pushlab-dev",
                routes: RetainzaRoutes = RetainzaRoutes(), allowRuntimeBaseURL: Bool = false) {
        self.bundleID = bundleID
        self.publicKey = publicKey
        self.baseURL = baseURL
        self.requireConsent = requireConsent
        self.maxQueuedEvents = maxQueuedEvents
        self.sessionTimeoutMs = sessionTimeoutMs
        self.storage = storage
        self.calls = calls
        self.userID = userID
        self.identifyUserID = identifyUserID
        self.consentMarketing = consentMarketing
        self.apnsToken = apnsToken
        self.fcmToken = fcmToken
        self.firebaseProject = firebaseProject
        self.routes = routes
        self.allowRuntimeBaseURL = allowRuntimeBaseURL
    }

    /// Every call of the seed's integration snippet, without the deprecated one.
    public static let fullIntegration: Set<RetainzaIntegrationCall> = Set(RetainzaIntegrationCall.allCases).subtracting([.handleDeviceToken])

    /// A registration token of FCM's shape (instance id, ':', APA91 token).
    public static let sampleFCMToken = "fRzA1x2y3zQ:APA91bHRetainzaDemoTokenForPushlab0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"

    public func calls(_ call: RetainzaIntegrationCall) -> Bool { calls.contains(call) }

    /// Whether a JSON profile asks for this SDK (`"sdkMode": "retainza"`).
    public static func isRetainza(_ data: Data) -> Bool {
        (try? JSONDocument.parse(Array(data)))?.root.objectValue?["sdkMode"]?.stringValue == "retainza"
    }

    public static func load(path: String) throws(AppProfileError) -> RetainzaAppProfile {
        let data = try AppProfileError.contents(of: path)
        return try decode(data, source: path)
    }

    public static func decode(_ data: Data, source: String) throws(AppProfileError) -> RetainzaAppProfile {
        let o = try rootObject(data, source: source)
        func value(_ key: String) -> JSONValue? {
            guard let v = o[key], !v.isNull else { return nil }
            return v
        }
        func string(_ key: String) throws(AppProfileError) -> String? {
            guard let v = value(key) else { return nil }
            guard let s = v.stringValue else { throw .invalidValue(source: source, pointer: "/\(key)", detail: "expected a string, got \(v.describedForMessage)") }
            return s
        }
        func bool(_ key: String) throws(AppProfileError) -> Bool? {
            guard let v = value(key) else { return nil }
            guard let b = v.boolValue else { throw .invalidValue(source: source, pointer: "/\(key)", detail: "expected true or false, got \(v.describedForMessage)") }
            return b
        }
        func int(_ key: String, _ range: ClosedRange<Int>) throws(AppProfileError) -> Int? {
            guard let v = value(key) else { return nil }
            guard let n = v.numberValue?.intValue else {
                throw .invalidValue(source: source, pointer: "/\(key)", detail: "expected a whole number, got \(v.describedForMessage)")
            }
            guard range.contains(n) else {
                throw .invalidValue(source: source, pointer: "/\(key)", detail: "must be in \(range.lowerBound)…\(range.upperBound), got \(n)")
            }
            return n
        }
        guard let key = try string("publicKey") else {
            throw .missingField(source: source, pointer: "/publicKey", why: "the SDK's publicKey, pk_test_… or pk_live_…")
        }
        var profile = RetainzaAppProfile(publicKey: key)
        if let v = try string("bundleId") { profile.bundleID = v }
        if let v = try string("baseURL") { profile.baseURL = v }
        if let v = try bool("requireConsent") { profile.requireConsent = v }
        if let v = try int("maxQueuedEvents", 1...100_000) { profile.maxQueuedEvents = v }
        if let v = try int("sessionTimeoutMs", 0...(7 * 24 * 3600 * 1000)) { profile.sessionTimeoutMs = v }
        if let v = try string("storage") {
            guard let kind = RetainzaStorageKind(rawValue: v) else {
                throw .invalidValue(source: source, pointer: "/storage",
                                    detail: "must be one of: \(RetainzaStorageKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            profile.storage = kind
        }
        if let v = value("calls") { profile.calls = try decodeCalls(v, source: source) }
        if o.keys.contains("userId") { profile.userID = try string("userId") }
        if let v = try string("identifyUserId") { profile.identifyUserID = v }
        if let v = try bool("allowRuntimeBaseURL") { profile.allowRuntimeBaseURL = v }
        if let v = try bool("consentMarketing") { profile.consentMarketing = v }
        if let v = try string("apnsToken") {
            if let problem = DeviceToken.problem(v, for: .apns) {
                throw .invalidValue(source: source, pointer: "/apnsToken", detail: problem.message)
            }
            profile.apnsToken = v.lowercased()
        }
        if let v = try string("fcmToken") {
            if let problem = DeviceToken.problem(v, for: .fcm) {
                throw .invalidValue(source: source, pointer: "/fcmToken", detail: problem.message)
            }
            profile.fcmToken = v
        }
        if let v = try string("firebaseProject") { profile.firebaseProject = v }
        if let v = value("routes") { profile.routes = try decodeRoutes(v, source: source) }
        return profile
    }

    /// The profile's top-level object: valid JSON, a Retainza profile, no unknown keys.
    private static func rootObject(_ data: Data, source: String) throws(AppProfileError) -> JSONObject {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw .malformedJSON(source: source, detail: "the file is empty")
        }
        let root: JSONValue
        do { root = try JSONDocument.parse(Array(data)).root } catch {
            throw .malformedJSON(source: source, detail: error.description)
        }
        guard let o = root.objectValue else {
            throw .invalidValue(source: source, pointer: "/", detail: "expected a JSON object { … }")
        }
        guard o["sdkMode"]?.stringValue == "retainza" else {
            throw .invalidValue(source: source, pointer: "/sdkMode",
                                detail: "must be \"retainza\" for a Retainza app profile, got \(o["sdkMode"]?.describedForMessage ?? "nothing") (a Customer.io profile goes to pushlab nse/open)")
        }
        for key in o.keys where !keys.contains(key) {
            throw .invalidValue(source: source, pointer: "/\(key)", detail: "unknown key; allowed: \(keys.joined(separator: ", "))")
        }
        return o
    }

    private static func decodeCalls(_ v: JSONValue, source: String) throws(AppProfileError) -> Set<RetainzaIntegrationCall> {
        guard let list = v.arrayValue else { throw .invalidValue(source: source, pointer: "/calls", detail: "expected a JSON array [ … ]") }
        var calls = Set<RetainzaIntegrationCall>()
        for (i, item) in list.enumerated() {
            guard let name = item.stringValue, let call = RetainzaIntegrationCall(rawValue: name) else {
                throw .invalidValue(source: source, pointer: "/calls/\(i)",
                                    detail: "must be one of: \(RetainzaIntegrationCall.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            calls.insert(call)
        }
        return calls
    }

    private static func decodeRoutes(_ v: JSONValue, source: String) throws(AppProfileError) -> RetainzaRoutes {
        guard let map = v.objectValue else { throw .invalidValue(source: source, pointer: "/routes", detail: "expected a JSON object { … }") }
        var overrides: [RetainzaRoute: String] = [:]
        for member in map.members {
            let name = member.key
            guard let route = RetainzaRoute(rawValue: name) else {
                throw .invalidValue(source: source, pointer: "/routes/\(name)",
                                    detail: "unknown route; allowed: \(RetainzaRoute.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard let path = member.value.stringValue else { throw .invalidValue(source: source, pointer: "/routes/\(name)", detail: "expected a string") }
            if let problem = RetainzaRoutes.problem(path: path) {
                throw .invalidValue(source: source, pointer: "/routes/\(name)", detail: problem)
            }
            overrides[route] = path
        }
        return RetainzaRoutes(overrides: overrides)
    }
}
