import Foundation

// The parts of a `DeepLinkProfile`. Each rejects unknown keys, so a typo such as
// `continueUserActivty` is an error naming its JSON pointer instead of a silently missing handler.

extension DeepLinkProfile {
    /// A handler that returns true for URLs matching one of `accepts` (`*`/`?` patterns over the
    /// whole URL).
    public struct URLHandler: Sendable, Hashable, Codable {
        public var accepts: [AASAPattern]
        public init(accepts: [String]) { self.accepts = accepts.map(AASAPattern.init) }
        public func handles(_ url: String) -> Bool { accepts.contains { $0.matches(url) } }

        enum CodingKeys: String, CodingKey, CaseIterable { case accepts }
        public init(from decoder: Decoder) throws {
            try rejectUnknownProfileKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
            accepts = try decoder.container(keyedBy: CodingKeys.self).decode([AASAPattern].self, forKey: .accepts)
        }
    }

    public struct AppDelegateHandlers: Sendable, Hashable, Codable {
        /// `application(_:continue:restorationHandler:)` — tier 2 calls it. Absent = not implemented.
        public var continueUserActivity: URLHandler?
        /// `application(_:open:options:)` — how an app-scheme URL arrives without UIScene.
        public var openURL: URLHandler?
        public init(continueUserActivity: URLHandler? = nil, openURL: URLHandler? = nil) {
            self.continueUserActivity = continueUserActivity
            self.openURL = openURL
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case continueUserActivity, openURL }
        public init(from decoder: Decoder) throws {
            try rejectUnknownProfileKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
            let c = try decoder.container(keyedBy: CodingKeys.self)
            continueUserActivity = try c.decodeIfPresent(URLHandler.self, forKey: .continueUserActivity)
            openURL = try c.decodeIfPresent(URLHandler.self, forKey: .openURL)
        }
    }

    public struct SceneHandlers: Sendable, Hashable, Codable {
        /// `scene(_:willConnectTo:options:)` reading `connectionOptions.urlContexts` (cold launch).
        public var willConnectTo: URLHandler?
        /// `scene(_:openURLContexts:)` (warm, app scheme).
        public var openURLContexts: URLHandler?
        /// `scene(_:continue:)` (warm, universal links iOS itself opens; the SDK never calls it).
        public var continueUserActivity: URLHandler?
        public init(willConnectTo: URLHandler? = nil, openURLContexts: URLHandler? = nil, continueUserActivity: URLHandler? = nil) {
            self.willConnectTo = willConnectTo
            self.openURLContexts = openURLContexts
            self.continueUserActivity = continueUserActivity
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case willConnectTo, openURLContexts, continueUserActivity }
        public init(from decoder: Decoder) throws {
            try rejectUnknownProfileKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
            let c = try decoder.container(keyedBy: CodingKeys.self)
            willConnectTo = try c.decodeIfPresent(URLHandler.self, forKey: .willConnectTo)
            openURLContexts = try c.decodeIfPresent(URLHandler.self, forKey: .openURLContexts)
            continueUserActivity = try c.decodeIfPresent(URLHandler.self, forKey: .continueUserActivity)
        }
    }

    public struct FrameworkBridge: Sendable, Hashable, Codable {
        public enum Framework: String, Sendable, Hashable, Codable, CaseIterable {
            case none, reactNative = "react-native", flutter, expo
        }
        public var framework: Framework
        /// Seconds after a cold launch until the app signals ready; nil = never.
        public var readyAfterSeconds: Double?
        public init(framework: Framework, readyAfterSeconds: Double? = nil) {
            self.framework = framework
            self.readyAfterSeconds = readyAfterSeconds
        }
        /// §5: buffered cold-launch destinations fall back to tier 3 after 10 seconds.
        public static let readinessTimeout: Double = 10

        enum CodingKeys: String, CodingKey, CaseIterable { case framework, readyAfterSeconds }
        public init(from decoder: Decoder) throws {
            try rejectUnknownProfileKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
            let c = try decoder.container(keyedBy: CodingKeys.self)
            framework = try c.decode(Framework.self, forKey: .framework)
            readyAfterSeconds = try c.decodeIfPresent(Double.self, forKey: .readyAfterSeconds)
        }
    }

    public enum ColdStartTapDelivery: String, Sendable, Hashable, Codable, CaseIterable {
        /// The SDK is the notification-center delegate from launch (Customer.io 4.x).
        case delegate
        /// Cold-start taps arrive only in the launch options (Retainza, §6).
        case launchOptions = "launch-options"
    }

    public struct InstalledApp: Sendable, Hashable, Codable {
        public var name: String
        public var urlSchemes: [String]
        public var associatedDomains: [AssociatedDomain]
        public init(name: String, urlSchemes: [String] = [], associatedDomains: [AssociatedDomain] = []) {
            self.name = name
            self.urlSchemes = urlSchemes
            self.associatedDomains = associatedDomains
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case name, urlSchemes, associatedDomains }
        public init(from decoder: Decoder) throws {
            try rejectUnknownProfileKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            urlSchemes = try c.decodeIfPresent([String].self, forKey: .urlSchemes) ?? []
            associatedDomains = try c.decodeIfPresent([AssociatedDomain].self, forKey: .associatedDomains) ?? []
        }
    }
}

private struct AnyProfileKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Throws `dataCorrupted` at the unknown key's path (AppProfileError turns it into a pointer).
func rejectUnknownProfileKeys(_ decoder: Decoder, known: [String]) throws {
    let all = try decoder.container(keyedBy: AnyProfileKey.self)
    if let unknown = all.allKeys.first(where: { !known.contains($0.stringValue) }) {
        throw DecodingError.dataCorrupted(.init(
            codingPath: all.codingPath + [unknown],
            debugDescription: "unknown key; known keys: \(known.sorted().joined(separator: ", "))"))
    }
}
