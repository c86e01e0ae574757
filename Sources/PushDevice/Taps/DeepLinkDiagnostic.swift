import Foundation

/// Why a tap or deep link went where it went, and what to change (docs/specs/device-side.md §5, §6).
/// The CLI prints `message` and `fix`; it never writes its own.
public enum DeepLinkDiagnostic: Sendable, Hashable {
    /// The link could not be parsed as a URL at all: nothing opens.
    case unparsableLink(link: String)
    /// The link has characters that need percent-encoding: iOS 17+ encodes them, older iOS
    /// cannot parse the link and opens nothing.
    case linkNotPercentEncoded(link: String, parsedOnThisOS: Bool)
    /// The link has no scheme (a relative URL): the system opens nothing.
    case linkWithoutScheme(link: String)
    /// Tier 2 compares the scheme exactly: `HTTPS://` is not `https`.
    case uppercaseSchemeSkipsContinuation(scheme: String)
    /// UIScene app without a tier-1 callback: tier 2 calls the *app* delegate, which does not
    /// implement `application(_:continue:restorationHandler:)`, so http(s) links reach tier 3.
    case sceneAppWithoutCallback
    /// No UIScene, but the app delegate lacks `application(_:continue:restorationHandler:)`.
    case continuationNotImplemented
    /// The app delegate's continuation returned false for this URL.
    case continuationDeclined(url: String)
    /// The callback returned false; resolution went on to the next tier.
    case callbackDeclined(url: String)
    /// Tier 3 opened the app's own universal link: iOS does not route it back into the app
    /// that asked, so it opens in the browser.
    case ownUniversalLinkOpensBrowser(domain: String)
    /// An `http://` URL on an associated domain: universal links are https only.
    case httpIsNeverAUniversalLink(domain: String)
    /// The AASA rules exclude this path (or list no rule for it).
    case pathNotClaimed(domain: String, verdict: String)
    /// A plain web link outside the app's associated domains opens the browser, as intended.
    case plainWebLink(host: String)
    /// Nothing on the device registered the scheme: the system opens nothing.
    case schemeNotRegistered(scheme: String)
    /// The app scheme opened the app, but the handler that receives it does not route this URL.
    case urlHandlerDoesNotRoute(handler: String, url: String)
    /// A universal link of another installed app opens that app.
    case otherAppClaimsLink(app: String)
    /// A cold-start tap that never reaches the notification delegate (§6): no opened metric.
    case coldStartTapNotCounted
    /// The framework bridge did not signal ready within 10 s; tier 3 took over.
    case bridgeNotReady(framework: String, readyAfterSeconds: Double?)
    /// The bridge delivered the buffered link once the app signalled ready.
    case bridgeDeliveredAfterReady(framework: String, seconds: Double)
    /// `showInForeground` is off: the banner is not shown in the foreground, so there is
    /// nothing to tap.
    case notShownInForeground
    /// Not a Customer.io push: the SDK leaves it to the app; no opened metric, no SDK deep link.
    case notACustomerIOPush
    /// `opened` is reported for the default action only.
    case noOpenedMetricForAction(action: String)
    /// `autoTrackPushEvents` is off: the SDK reports no `opened`.
    case automaticTrackingOff
    /// A Customer.io push without `CIO.push.link`: the tap opens the app where it was.
    case noLink

    public enum Severity: String, Sendable, Codable, Comparable {
        case info, warning, error
        public static func < (a: Severity, b: Severity) -> Bool {
            let order: [Severity] = [.info, .warning, .error]
            return order.firstIndex(of: a)! < order.firstIndex(of: b)!
        }
    }

    /// A stable identifier for tables, `--json` and test expectations.
    public var code: String {
        switch self {
        case .unparsableLink: return "unparsable-link"
        case .linkNotPercentEncoded: return "link-not-percent-encoded"
        case .linkWithoutScheme: return "link-without-scheme"
        case .uppercaseSchemeSkipsContinuation: return "uppercase-scheme-skips-tier2"
        case .sceneAppWithoutCallback: return "scene-app-without-callback"
        case .continuationNotImplemented: return "continuation-not-implemented"
        case .continuationDeclined: return "continuation-declined"
        case .callbackDeclined: return "callback-declined"
        case .ownUniversalLinkOpensBrowser: return "own-universal-link-opens-browser"
        case .httpIsNeverAUniversalLink: return "http-is-never-a-universal-link"
        case .pathNotClaimed: return "path-not-claimed"
        case .plainWebLink: return "plain-web-link"
        case .schemeNotRegistered: return "scheme-not-registered"
        case .urlHandlerDoesNotRoute: return "url-handler-does-not-route"
        case .otherAppClaimsLink: return "other-app-claims-link"
        case .coldStartTapNotCounted: return "cold-start-tap-not-counted"
        case .bridgeNotReady: return "bridge-not-ready"
        case .bridgeDeliveredAfterReady: return "bridge-delivered-after-ready"
        case .notShownInForeground: return "not-shown-in-foreground"
        case .notACustomerIOPush: return "not-a-customerio-push"
        case .noOpenedMetricForAction: return "no-opened-metric-for-action"
        case .automaticTrackingOff: return "automatic-tracking-off"
        case .noLink: return "no-link"
        }
    }

    public var severity: Severity {
        switch self {
        case .unparsableLink, .linkWithoutScheme, .sceneAppWithoutCallback, .continuationNotImplemented,
             .ownUniversalLinkOpensBrowser, .schemeNotRegistered, .coldStartTapNotCounted, .bridgeNotReady,
             .urlHandlerDoesNotRoute:
            return .error
        case .linkNotPercentEncoded(_, let parsed): return parsed ? .warning : .error
        case .uppercaseSchemeSkipsContinuation, .continuationDeclined, .httpIsNeverAUniversalLink, .pathNotClaimed,
             .notShownInForeground, .automaticTrackingOff:
            return .warning
        case .callbackDeclined, .plainWebLink, .otherAppClaimsLink, .bridgeDeliveredAfterReady, .notACustomerIOPush,
             .noOpenedMetricForAction, .noLink:
            return .info
        }
    }

    public var message: String {
        switch self {
        case .unparsableLink(let link):
            return "CIO.push.link '\(link)' is not a URL; the SDK has nothing to open"
        case .linkNotPercentEncoded(let link, let parsed):
            return parsed
                ? "CIO.push.link '\(link)' has characters that must be percent-encoded; iOS 17+ encodes them, earlier iOS cannot parse the link and opens nothing"
                : "CIO.push.link '\(link)' has characters that must be percent-encoded; this iOS version cannot parse it, so nothing opens"
        case .linkWithoutScheme(let link):
            return "CIO.push.link '\(link)' has no scheme; the system cannot open a relative URL"
        case .uppercaseSchemeSkipsContinuation(let scheme):
            return "scheme '\(scheme)' is not exactly 'http' or 'https', so tier 2 (universal-link continuation) is skipped"
        case .sceneAppWithoutCallback:
            return "the app uses UIScene and registers no deep-link callback; tier 2 calls the app delegate's application(_:continue:restorationHandler:), which this app does not implement (its URL handling lives in the scene delegate, which the SDK never calls), so http(s) links fall to tier 3 and open in the browser"
        case .continuationNotImplemented:
            return "the app delegate does not implement application(_:continue:restorationHandler:), so tier 2 cannot hand the link to the app"
        case .continuationDeclined(let url):
            return "application(_:continue:restorationHandler:) returned false for \(url)"
        case .callbackDeclined(let url):
            return "the deep-link callback returned false for \(url); resolution continued with the next tier"
        case .ownUniversalLinkOpensBrowser(let domain):
            return "\(domain) is this app's associated domain, but iOS does not route a universal link back into the app that opened it: the app opens, then the browser"
        case .httpIsNeverAUniversalLink(let domain):
            return "http://\(domain) links are never universal links (https only), so the system opens the browser"
        case .pathNotClaimed(let domain, let verdict):
            return "the apple-app-site-association rules of \(domain) do not claim this URL (\(verdict)), so it is a plain web link"
        case .plainWebLink(let host):
            return "\(host) is not an associated domain of any installed app; the link opens in the browser"
        case .schemeNotRegistered(let scheme):
            return "no app on the device registers the '\(scheme)' scheme; the system opens nothing"
        case .urlHandlerDoesNotRoute(let handler, let url):
            return "the app opened, but \(handler) does not handle \(url), so the user lands where the app was"
        case .otherAppClaimsLink(let app):
            return "the link is a universal link or scheme of another installed app (\(app)), which opens instead"
        case .coldStartTapNotCounted:
            return "this tap cold-launched the app and never reached the notification delegate; the app does not hand its launch options to the SDK, so the open is not counted and the link is not followed"
        case .bridgeNotReady(let framework, let ready):
            let when = ready.map { "after \($0) s" } ?? "never"
            return "the \(framework) bridge buffered the cold-launch link, but the app signalled ready \(when); after 10 s the SDK fell back to tier 3 (system open)"
        case .bridgeDeliveredAfterReady(let framework, let seconds):
            return "the \(framework) bridge held the cold-launch link until the app signalled ready after \(seconds) s"
        case .notShownInForeground:
            return "the app is in the foreground and the SDK's show-in-foreground option is off: willPresent shows nothing, so there is nothing to tap"
        case .notACustomerIOPush:
            return "not a Customer.io push (no string CIO-Delivery-ID and CIO-Delivery-Token): the SDK forwards it to the app's own delegates, reports no opened metric and opens no link"
        case .noOpenedMetricForAction(let action):
            return "the \(action) action does not report opened (default action only)"
        case .automaticTrackingOff:
            return "autoTrackPushEvents is off, so the SDK reports no opened metric"
        case .noLink:
            return "the push has no CIO.push.link; the tap just opens the app"
        }
    }

    public var fix: String {
        switch self {
        case .unparsableLink, .linkNotPercentEncoded:
            return "percent-encode the link (spaces as %20, non-ASCII as UTF-8 %XX) and use an absolute URL such as myapp://path or https://host/path"
        case .linkWithoutScheme:
            return "make the link absolute: add the app scheme (myapp://…) or https://"
        case .uppercaseSchemeSkipsContinuation:
            return "write the scheme in lower case (https://…) in the campaign's link"
        case .sceneAppWithoutCallback:
            return "register a deep-link callback (tier 1) that routes the URL, or implement application(_:continue:restorationHandler:) in the app delegate and forward to the scene's router"
        case .continuationNotImplemented:
            return "implement application(_:continue:restorationHandler:) in the app delegate, or register a deep-link callback (tier 1)"
        case .continuationDeclined:
            return "return true from application(_:continue:restorationHandler:) for this URL (check its path matching), or handle it in the deep-link callback"
        case .callbackDeclined:
            return "return true from the deep-link callback for URLs the app routes itself"
        case .ownUniversalLinkOpensBrowser:
            return "handle the link in tier 1 (deep-link callback) or tier 2 (application(_:continue:restorationHandler:)); tier 3 can never open this app's own universal link"
        case .httpIsNeverAUniversalLink:
            return "use https:// in the link"
        case .pathNotClaimed:
            return "add a component for this path to the domain's apple-app-site-association file, or link to a claimed path"
        case .plainWebLink:
            return "none needed for a web page; to open the app, use an app scheme or a universal link of an associated domain"
        case .schemeNotRegistered(let scheme):
            return "add '\(scheme)' to CFBundleURLTypes (profile deepLinks.urlSchemes), or fix the scheme in the link"
        case .urlHandlerDoesNotRoute(let handler, _):
            return "route this URL in \(handler) (or in the deep-link callback, which runs first)"
        case .otherAppClaimsLink:
            return "link to this app's own scheme or domain, or handle the URL in the deep-link callback before the system opens it"
        case .coldStartTapNotCounted:
            return "in application(_:didFinishLaunchingWithOptions:), pass launchOptions[.remoteNotification] to the SDK (or set the notification delegate before launch finishes)"
        case .bridgeNotReady:
            return "signal ready as soon as the navigation container is mounted (well within 10 s of launch)"
        case .bridgeDeliveredAfterReady:
            return "none needed; signal ready earlier to land sooner"
        case .notShownInForeground:
            return "enable the SDK's showPushAppInForeground option (profile deepLinks.showInForeground) or present the push from your willPresent delegate"
        case .notACustomerIOPush:
            return "send through Customer.io, or add string CIO-Delivery-ID and CIO-Delivery-Token at the top level of the payload"
        case .noOpenedMetricForAction:
            return "none needed; track custom actions yourself if you want them counted"
        case .automaticTrackingOff:
            return "turn on autoTrackPushEvents in the app profile, or track opened manually"
        case .noLink:
            return "set CIO.push.link to route the user somewhere specific"
        }
    }
}

extension DeepLinkDiagnostic: Encodable {
    enum CodingKeys: String, CodingKey { case code, severity, message, fix }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(severity, forKey: .severity)
        try c.encode(message, forKey: .message)
        try c.encode(fix, forKey: .fix)
    }
}
