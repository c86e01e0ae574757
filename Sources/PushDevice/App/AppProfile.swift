import Foundation

/// The emulated app: identifiers, credentials and SDK settings. Read from JSON (samples in
/// `payloads/apps/`). Unknown keys are rejected so a typo never silently falls back to a default.
public struct AppProfile: Codable, Sendable, Equatable {
    /// The host app's bundle id, e.g. `io.pushlab.demo`.
    public var bundleID: String
    /// The Notification Service Extension's bundle id, e.g. `io.pushlab.demo.richpush`.
    public var extensionBundleID: String
    /// The configured App Group id; nil → inferred (docs/specs/device-side.md §4).
    public var appGroupID: String?
    /// The CDP API key (`Authorization: Basic base64("<key>:")`, §3).
    public var cdpAPIKey: String
    public var region: MetricsRegion
    /// Overrides the region's host, e.g. `https://127.0.0.1:8443` for a local collector.
    public var metricsBaseURL: String?
    public var autoTrackPushEvents: Bool
    public var sdkMode: SDKMode
    /// Legacy (2.x) credentials: `Authorization: Basic base64("<site id>:<api key>")`.
    public var siteID: String?
    public var apiKey: String?
    /// App Transport Security's `NSAllowsArbitraryLoads`: allows plain-http images.
    public var allowArbitraryLoads: Bool
    public var appGroupStore: AppGroupStoreKind
    /// Row cap of the `sqlite` store (the `cio` store's cap is fixed at 100, §4).
    public var sqliteStoreCap: Int
    /// What the NSE's User-Agent reports (§3).
    public var sdkVersion: String
    public var appVersion: String
    public var deviceModel: String
    public var osVersion: String
    /// How the app receives deep links and taps (docs/specs/device-side.md §5); nil = no deep-link setup.
    public var deepLinks: DeepLinkProfile?
    /// The app's Live Activity types, update budget setting and widget-URL handling
    /// (docs/live-activities.md); nil = no Live Activities.
    public var liveActivities: LiveActivityProfile?

    public init(bundleID: String, extensionBundleID: String, appGroupID: String? = nil, cdpAPIKey: String,
                region: MetricsRegion = .us, metricsBaseURL: String? = nil, autoTrackPushEvents: Bool = true,
                sdkMode: SDKMode = .cio4, siteID: String? = nil, apiKey: String? = nil,
                allowArbitraryLoads: Bool = false, appGroupStore: AppGroupStoreKind? = nil,
                sqliteStoreCap: Int = 1000, sdkVersion: String = "4.7.5", appVersion: String = "1.0.0",
                deviceModel: String = "iPhone15,2", osVersion: String = "17.4",
                deepLinks: DeepLinkProfile? = nil, liveActivities: LiveActivityProfile? = nil) {
        self.bundleID = bundleID
        self.extensionBundleID = extensionBundleID
        self.appGroupID = appGroupID
        self.cdpAPIKey = cdpAPIKey
        self.region = region
        self.metricsBaseURL = metricsBaseURL
        self.autoTrackPushEvents = autoTrackPushEvents
        self.sdkMode = sdkMode
        self.siteID = siteID
        self.apiKey = apiKey
        self.allowArbitraryLoads = allowArbitraryLoads
        self.appGroupStore = appGroupStore ?? AppProfile.defaultStore(for: sdkMode)
        self.sqliteStoreCap = sqliteStoreCap
        self.sdkVersion = sdkVersion
        self.appVersion = appVersion
        self.deviceModel = deviceModel
        self.osVersion = osVersion
        self.deepLinks = deepLinks
        self.liveActivities = liveActivities
    }

    /// The reference SDK 4.4+ writes the JSON file; 2.x had no App Group store; the improved
    /// mode uses SQLite.
    public static func defaultStore(for mode: SDKMode) -> AppGroupStoreKind {
        switch mode {
        case .cio4: return .cio
        case .cioLegacy: return .off
        case .improved: return .sqlite
        }
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case bundleID = "bundleId"
        case extensionBundleID = "extensionBundleId"
        case appGroupID = "appGroupId"
        case cdpAPIKey = "cdpApiKey"
        case region
        case metricsBaseURL
        case autoTrackPushEvents
        case sdkMode
        case siteID = "siteId"
        case apiKey
        case allowArbitraryLoads
        case appGroupStore
        case sqliteStoreCap
        case sdkVersion
        case appVersion
        case deviceModel
        case osVersion
        case deepLinks
        case liveActivities
    }

    public init(from decoder: Decoder) throws {
        try AppProfile.rejectUnknownKeys(decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let mode = try c.decodeIfPresent(SDKMode.self, forKey: .sdkMode) ?? .cio4
        self.init(
            bundleID: try c.decode(String.self, forKey: .bundleID),
            extensionBundleID: try c.decode(String.self, forKey: .extensionBundleID),
            appGroupID: try c.decodeIfPresent(String.self, forKey: .appGroupID),
            cdpAPIKey: try c.decodeIfPresent(String.self, forKey: .cdpAPIKey) ?? "",
            region: try c.decodeIfPresent(MetricsRegion.self, forKey: .region) ?? .us,
            metricsBaseURL: try c.decodeIfPresent(String.self, forKey: .metricsBaseURL),
            autoTrackPushEvents: try c.decodeIfPresent(Bool.self, forKey: .autoTrackPushEvents) ?? true,
            sdkMode: mode,
            siteID: try c.decodeIfPresent(String.self, forKey: .siteID),
            apiKey: try c.decodeIfPresent(String.self, forKey: .apiKey),
            allowArbitraryLoads: try c.decodeIfPresent(Bool.self, forKey: .allowArbitraryLoads) ?? false,
            appGroupStore: try c.decodeIfPresent(AppGroupStoreKind.self, forKey: .appGroupStore),
            sqliteStoreCap: try c.decodeIfPresent(Int.self, forKey: .sqliteStoreCap) ?? 1000,
            sdkVersion: try c.decodeIfPresent(String.self, forKey: .sdkVersion) ?? "4.7.5",
            appVersion: try c.decodeIfPresent(String.self, forKey: .appVersion) ?? "1.0.0",
            deviceModel: try c.decodeIfPresent(String.self, forKey: .deviceModel) ?? "iPhone15,2",
            osVersion: try c.decodeIfPresent(String.self, forKey: .osVersion) ?? "17.4",
            deepLinks: try c.decodeIfPresent(DeepLinkProfile.self, forKey: .deepLinks),
            liveActivities: try c.decodeIfPresent(LiveActivityProfile.self, forKey: .liveActivities))
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static func rejectUnknownKeys(_ decoder: Decoder) throws {
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        let all = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = all.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: [unknown],
                debugDescription: "unknown key; known keys: \(known.sorted().joined(separator: ", "))"))
        }
    }
}

// MARK: - Loading and checks

extension AppProfile {
    /// Reads and checks a profile file. Errors name the file and the JSON pointer.
    public static func load(path: String) throws(AppProfileError) -> AppProfile {
        let data = try AppProfileError.contents(of: path)
        return try decode(Array(data), source: path)
    }

    public static func decode(_ bytes: [UInt8], source: String = "app profile") throws(AppProfileError) -> AppProfile {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw .malformedJSON(source: source, detail: "the file is empty")
        }
        // A Retainza profile given where a Customer.io one goes: say so, not "/apnsToken: unknown key".
        if RetainzaAppProfile.isRetainza(Data(bytes)) {
            throw .invalidValue(source: source, pointer: "/sdkMode", detail: "\"retainza\" is a Retainza app profile, not a Customer.io one: "
                                + "it goes to pushlab retainza check|reproduce --app, or simulate --retainza-app (docs/retainza.md)")
        }
        let profile: AppProfile
        do {
            profile = try JSONDecoder().decode(AppProfile.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw AppProfileError.from(error, source: source)
        } catch {
            throw .malformedJSON(source: source, detail: "\(error)")
        }
        try profile.check(source: source)
        return profile
    }

    /// Cross-field rules Codable cannot express.
    public func check(source: String = "app profile") throws(AppProfileError) {
        if bundleID.isEmpty { throw .invalidValue(source: source, pointer: "/bundleId", detail: "must not be empty") }
        if extensionBundleID.isEmpty {
            throw .invalidValue(source: source, pointer: "/extensionBundleId", detail: "must not be empty")
        }
        if let base = metricsBaseURL {
            guard let url = URL(string: base), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw .invalidValue(source: source, pointer: "/metricsBaseURL",
                                    detail: "'\(base)' is not an http(s) URL like https://127.0.0.1:8443")
            }
        }
        if sdkMode == .cioLegacy {
            if (siteID ?? "").isEmpty { throw .missingField(source: source, pointer: "/siteId", why: "sdkMode cio-legacy authenticates with site id + API key") }
            if (apiKey ?? "").isEmpty { throw .missingField(source: source, pointer: "/apiKey", why: "sdkMode cio-legacy authenticates with site id + API key") }
        } else if cdpAPIKey.isEmpty {
            throw .missingField(source: source, pointer: "/cdpApiKey", why: "sdkMode \(sdkMode.rawValue) authenticates with the CDP API key")
        }
        if sqliteStoreCap < 1 { throw .invalidValue(source: source, pointer: "/sqliteStoreCap", detail: "must be at least 1") }
        for (index, schema) in (liveActivities?.activities ?? []).enumerated() {
            if let pointer = schema.unknownFieldTypes.first {
                throw .invalidValue(source: source, pointer: "/liveActivities/activities/\(index)\(pointer)",
                                    detail: "field types are \(LiveActivitySchema.fieldTypes.joined(separator: ", ")), optionally with a trailing ?")
            }
        }
    }
}
