import Foundation

/// A pattern of the apple-app-site-association `applinks` format: `*` matches zero or more
/// characters (slashes included), `?` exactly one; everything else is literal. A pattern
/// matches the whole string. Used for paths, query values and fragments, and (in app
/// profiles) for the URL lists a deep-link handler accepts.
public struct AASAPattern: Sendable, Hashable, Codable, CustomStringConvertible {
    public let text: String

    public init(_ text: String) { self.text = text }

    public init(from decoder: Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }

    public var description: String { text }

    /// Matches all of `subject`. `caseSensitive: false` folds both sides.
    public func matches(_ subject: String, caseSensitive: Bool = true) -> Bool {
        let p = Array(caseSensitive ? text : text.lowercased())
        let s = Array(caseSensitive ? subject : subject.lowercased())
        // Iterative wildcard matching with one backtrack point (the last `*`): linear in
        // practice, never exponential on patterns like `*a*a*a*b`.
        var pi = 0, si = 0
        var star: Int?
        var starMatch = 0
        while si < s.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == s[si]) {
                pi += 1
                si += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi
                starMatch = si
                pi += 1
            } else if let st = star {
                pi = st + 1
                starMatch += 1
                si = starMatch
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
