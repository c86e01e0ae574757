import Foundation

/// One `applinks:` entry of an app's Associated Domains entitlement together with the rules the
/// domain's apple-app-site-association file publishes for that app.
public struct AssociatedDomain: Sendable, Hashable, Codable {
    /// `links.example.com`, or `*.example.com` for every subdomain (not the apex itself). An
    /// `applinks:` prefix and a `?mode=developer` suffix are accepted and ignored.
    public var domain: String
    /// The `components` rules (current format). Used when present.
    public var components: [AASAComponent]?
    /// The legacy `paths` rules (`"NOT /admin/*"` excludes). Used when `components` is absent.
    public var paths: [String]?

    public init(domain: String, components: [AASAComponent]? = nil, paths: [String]? = nil) {
        self.domain = domain
        self.components = components
        self.paths = paths
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case domain, components, paths }
    public init(from decoder: Decoder) throws {
        try rejectUnknownProfileKeys(decoder, known: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        domain = try c.decode(String.self, forKey: .domain)
        components = try c.decodeIfPresent([AASAComponent].self, forKey: .components)
        paths = try c.decodeIfPresent([String].self, forKey: .paths)
    }

    /// The host part, without `applinks:` and `?mode=…`, lowercased.
    public var host: String {
        var d = domain
        if d.hasPrefix("applinks:") { d.removeFirst("applinks:".count) }
        if let q = d.firstIndex(of: "?") { d = String(d[..<q]) }
        return d.lowercased()
    }

    public func coversHost(_ candidate: String) -> Bool {
        let h = candidate.lowercased()
        if host.hasPrefix("*.") {
            let base = host.dropFirst(2)
            return h.hasSuffix("." + base)
        }
        return h == host
    }

    /// How the rules judge `url` (the host is checked by `coversHost`).
    public func verdict(for url: URL) -> AASAVerdict {
        let parts = AASAURLParts(url: url)
        if let components {
            for (i, c) in components.enumerated() where c.matches(parts) {
                return c.exclude ? .excluded(rule: "components[\(i)]") : .included(rule: "components[\(i)]")
            }
            return .noMatch
        }
        if let paths {
            for (i, raw) in paths.enumerated() {
                let excluded = raw.hasPrefix("NOT ")
                let pattern = AASAPattern(excluded ? String(raw.dropFirst(4)) : raw)
                if pattern.matches(parts.path) {
                    return excluded ? .excluded(rule: "paths[\(i)]") : .included(rule: "paths[\(i)]")
                }
            }
            return .noMatch
        }
        // No rules published for this app: nothing is a universal link.
        return .noMatch
    }
}

/// What the apple-app-site-association rules say about one URL.
public enum AASAVerdict: Sendable, Hashable {
    case included(rule: String)
    case excluded(rule: String)
    case noMatch

    public var isUniversalLink: Bool { if case .included = self { return true } else { return false } }
}

extension Array where Element == AssociatedDomain {
    /// The first domain entry covering the URL's host and its verdict. Universal links are
    /// https only: an `http` URL never opens an app.
    public func universalLinkMatch(_ url: URL) -> (domain: AssociatedDomain, verdict: AASAVerdict)? {
        guard let host = url.host else { return nil }
        guard let entry = first(where: { $0.coversHost(host) }) else { return nil }
        return (entry, entry.verdict(for: url))
    }
}
