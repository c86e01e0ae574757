import Foundation

/// How an app receives deep links (docs/specs/device-side.md §5): what it registers with iOS and which
/// of its handlers route which URLs. The `deepLinks` section of an app profile.
///
/// Handler lists (`accepts`) are URL patterns with `*` and `?` (see `AASAPattern`) matched
/// against the whole URL; a handler returns true for a URL that matches one of them.
public struct DeepLinkProfile: Sendable, Hashable, Codable {
    /// `CFBundleURLTypes` schemes, e.g. `pushlab` for `pushlab://…` (compared case-insensitively).
    public var urlSchemes: [String]
    /// The Associated Domains entitlement with each domain's apple-app-site-association rules.
    public var associatedDomains: [AssociatedDomain]
    /// Tier 1: the SDK's deep-link callback. Absent = none registered.
    public var callback: URLHandler?
    /// The `UIApplicationDelegate`'s URL methods.
    public var appDelegate: AppDelegateHandlers
    /// UIScene: present when the app uses a scene delegate (iOS 13+, required by iOS 27 SDK builds).
    public var scene: SceneHandlers?
    /// A cross-platform framework between the SDK and the app's router.
    public var bridge: FrameworkBridge?
    /// How a tap that cold-launches the app reaches the SDK (§6).
    public var coldStartTaps: ColdStartTapDelivery
    /// Whether `application(_:didFinishLaunchingWithOptions:)` hands a launch-options
    /// notification to the SDK (§6: needed when cold-start taps skip the delegate).
    public var handlesLaunchOptions: Bool
    /// The SDK's "show push while the app is in the foreground" option (`willPresent`).
    public var showInForeground: Bool
    /// Other `UNUserNotificationCenterDelegate`s the SDK forwards to after its own work.
    public var otherNotificationDelegates: [String]
    /// Other apps on the device: their schemes and associated domains claim links too.
    public var installedApps: [InstalledApp]

    public init(urlSchemes: [String] = [], associatedDomains: [AssociatedDomain] = [], callback: URLHandler? = nil,
                appDelegate: AppDelegateHandlers = AppDelegateHandlers(), scene: SceneHandlers? = nil,
                bridge: FrameworkBridge? = nil, coldStartTaps: ColdStartTapDelivery = .delegate,
                handlesLaunchOptions: Bool = false, showInForeground: Bool = true,
                otherNotificationDelegates: [String] = [], installedApps: [InstalledApp] = []) {
        self.urlSchemes = urlSchemes
        self.associatedDomains = associatedDomains
        self.callback = callback
        self.appDelegate = appDelegate
        self.scene = scene
        self.bridge = bridge
        self.coldStartTaps = coldStartTaps
        self.handlesLaunchOptions = handlesLaunchOptions
        self.showInForeground = showInForeground
        self.otherNotificationDelegates = otherNotificationDelegates
        self.installedApps = installedApps
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case urlSchemes, associatedDomains, callback, appDelegate, scene, bridge, coldStartTaps
        case handlesLaunchOptions, showInForeground, otherNotificationDelegates, installedApps
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownProfileKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            urlSchemes: try c.decodeIfPresent([String].self, forKey: .urlSchemes) ?? [],
            associatedDomains: try c.decodeIfPresent([AssociatedDomain].self, forKey: .associatedDomains) ?? [],
            callback: try c.decodeIfPresent(URLHandler.self, forKey: .callback),
            appDelegate: try c.decodeIfPresent(AppDelegateHandlers.self, forKey: .appDelegate) ?? AppDelegateHandlers(),
            scene: try c.decodeIfPresent(SceneHandlers.self, forKey: .scene),
            bridge: try c.decodeIfPresent(FrameworkBridge.self, forKey: .bridge),
            coldStartTaps: try c.decodeIfPresent(ColdStartTapDelivery.self, forKey: .coldStartTaps) ?? .delegate,
            handlesLaunchOptions: try c.decodeIfPresent(Bool.self, forKey: .handlesLaunchOptions) ?? false,
            showInForeground: try c.decodeIfPresent(Bool.self, forKey: .showInForeground) ?? true,
            otherNotificationDelegates: try c.decodeIfPresent([String].self, forKey: .otherNotificationDelegates) ?? [],
            installedApps: try c.decodeIfPresent([InstalledApp].self, forKey: .installedApps) ?? [])
    }

    /// The profile as it is after adopting UIScene the usual way (`pushlab open --scene`): the
    /// app delegate's URL methods move to the scene delegate, so the app delegate no longer
    /// implements `application(_:continue:restorationHandler:)` — the §5 pitfall.
    public func adoptingUIScene() -> DeepLinkProfile {
        guard scene == nil else { return self }
        var p = self
        p.scene = SceneHandlers(willConnectTo: appDelegate.openURL, openURLContexts: appDelegate.openURL,
                                continueUserActivity: appDelegate.continueUserActivity)
        p.appDelegate = AppDelegateHandlers()
        return p
    }

    /// True when this app registered `scheme` (iOS compares schemes case-insensitively).
    public func registers(scheme: String) -> Bool {
        urlSchemes.contains { $0.lowercased() == scheme.lowercased() }
    }
}
