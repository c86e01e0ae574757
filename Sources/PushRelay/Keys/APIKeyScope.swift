/// What an API key may do: one app's routes, or everything (admin).
public enum APIKeyScope: Sendable, Hashable, CustomStringConvertible {
    case app(String)
    case admin

    public var description: String {
        switch self {
        case .app(let name): return "app:\(name)"
        case .admin: return "admin"
        }
    }

    init?(stored: String) {
        if stored == "admin" { self = .admin } else if stored.hasPrefix("app:") { self = .app(String(stored.dropFirst(4))) } else { return nil }
    }

    public func allows(app name: String) -> Bool {
        switch self {
        case .admin: return true
        case .app(let own): return own == name
        }
    }
}
