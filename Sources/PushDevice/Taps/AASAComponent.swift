import Foundation

/// One entry of `applinks.details[].components` in an apple-app-site-association file.
/// Absent keys match anything. The first component that matches a URL decides: a matching
/// `exclude: true` component means "not a universal link" (Apple: Supporting associated domains).
public struct AASAComponent: Sendable, Hashable, Codable {
    /// `/`: the path pattern.
    public var path: AASAPattern?
    /// `?`: a pattern for the whole query string, or a dictionary of query item name → value
    /// pattern (every listed item must be present and match; others are ignored).
    public var query: QueryRule?
    /// `#`: the fragment pattern.
    public var fragment: AASAPattern?
    public var exclude: Bool
    public var caseSensitive: Bool
    /// When true (the default) patterns are written percent-encoded and compared against the
    /// decoded URL after decoding them too.
    public var percentEncoded: Bool
    public var comment: String?

    public enum QueryRule: Sendable, Hashable, Codable {
        case whole(AASAPattern)
        case items([String: AASAPattern])

        public init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) {
                self = .whole(AASAPattern(s))
            } else {
                self = .items(try c.decode([String: AASAPattern].self))
            }
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .whole(let p): try c.encode(p)
            case .items(let d): try c.encode(d)
            }
        }
    }

    public init(path: String? = nil, query: QueryRule? = nil, fragment: String? = nil, exclude: Bool = false,
                caseSensitive: Bool = true, percentEncoded: Bool = true, comment: String? = nil) {
        self.path = path.map(AASAPattern.init)
        self.query = query
        self.fragment = fragment.map(AASAPattern.init)
        self.exclude = exclude
        self.caseSensitive = caseSensitive
        self.percentEncoded = percentEncoded
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey {
        case path = "/", query = "?", fragment = "#", exclude, caseSensitive, percentEncoded, comment
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        path = try c.decodeIfPresent(AASAPattern.self, forKey: .path)
        query = try c.decodeIfPresent(QueryRule.self, forKey: .query)
        fragment = try c.decodeIfPresent(AASAPattern.self, forKey: .fragment)
        exclude = try c.decodeIfPresent(Bool.self, forKey: .exclude) ?? false
        caseSensitive = try c.decodeIfPresent(Bool.self, forKey: .caseSensitive) ?? true
        percentEncoded = try c.decodeIfPresent(Bool.self, forKey: .percentEncoded) ?? true
        comment = try c.decodeIfPresent(String.self, forKey: .comment)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(path, forKey: .path)
        try c.encodeIfPresent(query, forKey: .query)
        try c.encodeIfPresent(fragment, forKey: .fragment)
        if exclude { try c.encode(true, forKey: .exclude) }
        if !caseSensitive { try c.encode(false, forKey: .caseSensitive) }
        if !percentEncoded { try c.encode(false, forKey: .percentEncoded) }
        try c.encodeIfPresent(comment, forKey: .comment)
    }

    /// True when every present key matches `url`.
    public func matches(_ url: AASAURLParts) -> Bool {
        if let path, !match(path, url.path) { return false }
        if let fragment, !match(fragment, url.fragment ?? "") { return false }
        switch query {
        case nil: break
        case .whole(let p):
            if !match(p, url.query ?? "") { return false }
        case .items(let rules):
            for (name, pattern) in rules {
                let decodedName = percentEncoded ? (name.removingPercentEncoding ?? name) : name
                let values = url.queryItems.filter {
                    caseSensitive ? $0.name == decodedName : $0.name.lowercased() == decodedName.lowercased()
                }.map(\.value)
                if !values.contains(where: { match(pattern, $0) }) { return false }
            }
        }
        return true
    }

    private func match(_ pattern: AASAPattern, _ subject: String) -> Bool {
        let p = percentEncoded ? AASAPattern(pattern.text.removingPercentEncoding ?? pattern.text) : pattern
        return p.matches(subject, caseSensitive: caseSensitive)
    }
}

/// The parts of a URL the `components` rules look at, percent-decoded.
public struct AASAURLParts: Sendable, Hashable {
    public var path: String
    public var query: String?
    public var queryItems: [(name: String, value: String)]
    public var fragment: String?

    public init(url: URL) {
        let comps = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let p = comps?.path ?? url.path
        path = p.isEmpty ? "/" : p
        query = comps?.query
        queryItems = (comps?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        fragment = comps?.fragment
    }

    public static func == (a: AASAURLParts, b: AASAURLParts) -> Bool {
        a.path == b.path && a.query == b.query && a.fragment == b.fragment
            && a.queryItems.map(\.name) == b.queryItems.map(\.name) && a.queryItems.map(\.value) == b.queryItems.map(\.value)
    }

    public func hash(into h: inout Hasher) {
        h.combine(path)
        h.combine(query)
        h.combine(fragment)
    }
}
