import Foundation

/// Where the user ends up.
public enum TapDestination: Sendable, Hashable {
    /// This app routed the URL in `handler`.
    case appRoute(handler: String, url: String)
    /// This app is open, but nothing routed a URL (no link, or a handler ignored it).
    case appHome
    /// Another installed app opened the URL.
    case otherApp(name: String, url: String)
    /// Safari opened the URL.
    case browser(url: String)
    /// The link opened nothing; the user stays where the tap left them.
    case nothing

    /// A stable name for tables and expectations.
    public var kind: String {
        switch self {
        case .appRoute: return "app-route"
        case .appHome: return "app-home"
        case .otherApp: return "other-app"
        case .browser: return "browser"
        case .nothing: return "nothing"
        }
    }

    public var summary: String {
        switch self {
        case .appRoute(let handler, let url): return "app route via \(handler): \(url)"
        case .appHome: return "the app, with no route"
        case .otherApp(let name, let url): return "another app (\(name)): \(url)"
        case .browser(let url): return "the browser: \(url)"
        case .nothing: return "nothing"
        }
    }
}
