import Foundation

/// The decoded `name=value` pairs of a request's query string (`+` and percent escapes decoded,
/// the last of a repeated name wins), with typed getters whose errors name the parameter.
/// One reader for every server's query strings (the gateway's `/admin`, the console's and the
/// relay's APIs).
public struct QueryParameters: Sendable {
    private var items: [String: String] = [:]

    public init(_ query: String?) {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (s: Substring) in String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            items[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
    }

    public subscript(name: String) -> String? { items[name] }

    /// `name` as a whole number in `range`; nil when it is absent or empty (the caller's default).
    public func int(_ name: String, range: ClosedRange<Int>) throws(QueryParameterError) -> Int? {
        try int64(name, range: Int64(range.lowerBound)...Int64(range.upperBound)).map { Int($0) }
    }

    public func int64(_ name: String, range: ClosedRange<Int64>) throws(QueryParameterError) -> Int64? {
        guard let raw = items[name], !raw.isEmpty else { return nil }
        guard let v = Int64(raw), range.contains(v) else {
            throw QueryParameterError(field: name, error: "\(name)=\(raw) is not a whole number in \(range.lowerBound)…\(range.upperBound)",
                                      fix: "pass \(name) as a whole number in that range, or leave it out")
        }
        return v
    }
}

/// A query parameter a route cannot take: which one, what is wrong, and how to fix it (the
/// `{"field", "error", "fix"}` body of a 400).
public struct QueryParameterError: Error, Sendable, Encodable, Equatable {
    public var field: String
    public var error: String
    public var fix: String

    public init(field: String, error: String, fix: String) {
        self.field = field
        self.error = error
        self.fix = fix
    }
}
