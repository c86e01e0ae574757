import Foundation

/// Resolves a push's deep link through the three tiers of docs/specs/device-side.md §5:
/// 1. the deep-link callback; 2. `application(_:continue:restorationHandler:)` for links
/// whose scheme is exactly `http` or `https`; 3. the system open (app scheme → the app that
/// registered it; another app's universal link → that app; any other http(s) → the browser,
/// the app's own universal links included; unknown scheme → nothing).
public struct DeepLinkRouter: Sendable {
    public var profile: DeepLinkProfile
    /// The iOS major version: from 17 on, `URL(string:)` percent-encodes invalid characters.
    public var osMajorVersion: Int

    public init(profile: DeepLinkProfile, osMajorVersion: Int = 17) {
        self.profile = profile
        self.osMajorVersion = osMajorVersion
    }

    /// How the SDK reads `CIO.push.link`: nil when `URL(string:)` fails on this iOS version.
    public func parse(_ link: String) -> (url: URL?, diagnostics: [DeepLinkDiagnostic]) {
        if let strict = URL(string: link, encodingInvalidCharacters: false) { return (strict, []) }
        if let lenient = URL(string: link) {
            let parsed = osMajorVersion >= 17
            return (parsed ? lenient : nil, [.linkNotPercentEncoded(link: link, parsedOnThisOS: parsed)])
        }
        return (nil, [.unparsableLink(link: link)])
    }

    public func resolve(_ link: String, state: AppLaunchState) -> DeepLinkResolution {
        let (parsed, parseDiagnostics) = parse(link)
        var r = DeepLinkResolution(tier: nil, destination: .nothing, atSeconds: 0, steps: [], diagnostics: parseDiagnostics)
        guard let url = parsed else { return r }
        let text = url.absoluteString

        // Tier 1: the callback. A bridge holds cold-launch links until the app is ready.
        var bridgeTimedOut = false
        if let callback = profile.callback {
            if let bridge = profile.bridge, bridge.framework != .none, state == .cold {
                let name = bridge.framework.rawValue
                if let ready = bridge.readyAfterSeconds, ready <= DeepLinkProfile.FrameworkBridge.readinessTimeout {
                    r.atSeconds = ready
                    r.steps.append(.bridgeBuffered(framework: name, untilSeconds: ready))
                    r.diagnostics.append(.bridgeDeliveredAfterReady(framework: name, seconds: ready))
                } else {
                    bridgeTimedOut = true
                    r.atSeconds = DeepLinkProfile.FrameworkBridge.readinessTimeout
                    r.steps.append(.bridgeBuffered(framework: name, untilSeconds: r.atSeconds))
                    r.steps.append(.tierSkipped(.callback, why: "the app never signalled ready within 10 s"))
                    r.diagnostics.append(.bridgeNotReady(framework: name, readyAfterSeconds: bridge.readyAfterSeconds))
                }
            }
            if !bridgeTimedOut {
                if callback.handles(text) {
                    r.tier = .callback
                    r.destination = .appRoute(handler: "deep-link callback", url: text)
                    r.steps.append(.tierHandled(.callback, handler: "the callback"))
                    return r
                }
                r.steps.append(.tierDeclined(.callback, handler: "the callback"))
                r.diagnostics.append(.callbackDeclined(url: text))
            }
        } else {
            r.steps.append(.tierSkipped(.callback, why: "no callback registered"))
        }

        // Tier 2: exact, case-sensitive scheme check (§5).
        var continuationDeclined = false
        if bridgeTimedOut {
            r.steps.append(.tierSkipped(.continuation, why: "the bridge fell back straight to tier 3"))
        } else if url.scheme == "http" || url.scheme == "https" {
            if let continuation = profile.appDelegate.continueUserActivity {
                if continuation.handles(text) {
                    r.tier = .continuation
                    r.destination = .appRoute(handler: "application(_:continue:restorationHandler:)", url: text)
                    r.steps.append(.tierHandled(.continuation, handler: "application(_:continue:restorationHandler:)"))
                    return r
                }
                continuationDeclined = true
                r.steps.append(.tierDeclined(.continuation, handler: "application(_:continue:restorationHandler:)"))
            } else {
                r.steps.append(.tierSkipped(.continuation, why: "the app delegate does not implement application(_:continue:restorationHandler:)"))
            }
        } else if let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()) {
            r.steps.append(.tierSkipped(.continuation, why: "scheme '\(scheme)' is not exactly http/https"))
            r.diagnostics.append(.uppercaseSchemeSkipsContinuation(scheme: scheme))
        } else {
            r.steps.append(.tierSkipped(.continuation, why: "not an http(s) link"))
        }

        // Tier 3: the system opens the URL.
        r.tier = .systemOpen
        systemOpen(url, state: state, continuationDeclined: continuationDeclined, bridgeTimedOut: bridgeTimedOut, into: &r)
        return r
    }

    private func systemOpen(_ url: URL, state: AppLaunchState, continuationDeclined: Bool, bridgeTimedOut: Bool,
                            into r: inout DeepLinkResolution) {
        let text = url.absoluteString
        guard let scheme = url.scheme?.lowercased() else {
            r.destination = .nothing
            r.steps.append(.systemOpened(target: "nothing (no scheme)"))
            r.diagnostics.append(.linkWithoutScheme(link: text))
            return
        }
        if scheme == "http" || scheme == "https" {
            webOpen(url, scheme: scheme, continuationDeclined: continuationDeclined, bridgeTimedOut: bridgeTimedOut, into: &r)
            return
        }
        if profile.registers(scheme: scheme) {
            let (name, handler) = urlOpenHandler(state: state)
            if handler?.handles(text) == true {
                r.destination = .appRoute(handler: name, url: text)
                r.steps.append(.systemOpened(target: "this app, \(name) routes it"))
            } else {
                r.destination = .appHome
                r.steps.append(.systemOpened(target: "this app, but \(name) does not route it"))
                r.diagnostics.append(.urlHandlerDoesNotRoute(handler: name, url: text))
            }
            return
        }
        if let app = profile.installedApps.first(where: { $0.urlSchemes.contains { $0.lowercased() == scheme } }) {
            r.destination = .otherApp(name: app.name, url: text)
            r.steps.append(.systemOpened(target: "\(app.name), which registers '\(scheme)'"))
            r.diagnostics.append(.otherAppClaimsLink(app: app.name))
            return
        }
        r.destination = .nothing
        r.steps.append(.systemOpened(target: "nothing, no app registers '\(scheme)'"))
        r.diagnostics.append(.schemeNotRegistered(scheme: url.scheme ?? scheme))
    }

    /// The handler an app-scheme URL reaches: the scene delegate under UIScene (cold:
    /// `willConnectTo`, warm: `openURLContexts`), else the app delegate's `open` method.
    private func urlOpenHandler(state: AppLaunchState) -> (String, DeepLinkProfile.URLHandler?) {
        if let scene = profile.scene {
            return state == .cold
                ? ("scene(_:willConnectTo:options:)", scene.willConnectTo)
                : ("scene(_:openURLContexts:)", scene.openURLContexts)
        }
        return ("application(_:open:options:)", profile.appDelegate.openURL)
    }

    private func webOpen(_ url: URL, scheme: String, continuationDeclined: Bool, bridgeTimedOut: Bool,
                         into r: inout DeepLinkResolution) {
        let text = url.absoluteString
        let host = url.host ?? ""
        // Another installed app's universal link opens that app (https only).
        if scheme == "https" {
            for app in profile.installedApps {
                if let match = app.associatedDomains.universalLinkMatch(url), match.verdict.isUniversalLink {
                    r.destination = .otherApp(name: app.name, url: text)
                    r.steps.append(.systemOpened(target: "\(app.name), whose associated domain \(match.domain.host) claims the link"))
                    r.diagnostics.append(.otherAppClaimsLink(app: app.name))
                    return
                }
            }
        }
        r.destination = .browser(url: text)
        let own = profile.associatedDomains.universalLinkMatch(url)
        switch (own, scheme) {
        case (let match?, "https") where match.verdict.isUniversalLink:
            r.steps.append(.systemOpened(target: "the browser (iOS does not route this app's own universal link back to it)"))
            r.diagnostics.append(.ownUniversalLinkOpensBrowser(domain: match.domain.host))
        case (let match?, "https"):
            r.steps.append(.systemOpened(target: "the browser (the AASA rules do not claim this URL)"))
            r.diagnostics.append(.pathNotClaimed(domain: match.domain.host, verdict: verdictText(match.verdict)))
        case (let match?, _):
            r.steps.append(.systemOpened(target: "the browser (http is never a universal link)"))
            r.diagnostics.append(.httpIsNeverAUniversalLink(domain: match.domain.host))
        default:
            r.steps.append(.systemOpened(target: "the browser"))
            r.diagnostics.append(.plainWebLink(host: host))
        }
        // Why the app did not take the link itself in tiers 1–2.
        if bridgeTimedOut { return }
        let appWantsIt = own != nil
        if profile.scene != nil && profile.callback == nil && profile.appDelegate.continueUserActivity == nil {
            r.diagnostics.append(.sceneAppWithoutCallback)
        } else if appWantsIt && continuationDeclined {
            r.diagnostics.append(.continuationDeclined(url: text))
        } else if appWantsIt && profile.appDelegate.continueUserActivity == nil && url.scheme?.lowercased() == url.scheme {
            r.diagnostics.append(.continuationNotImplemented)
        }
    }

    private func verdictText(_ verdict: AASAVerdict) -> String {
        switch verdict {
        case .excluded(let rule): return "excluded by \(rule)"
        case .noMatch: return "no rule matches"
        case .included(let rule): return "claimed by \(rule)"
        }
    }
}
