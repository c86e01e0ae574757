import Foundation
import PushCore

/// The keys the collector accepts (docs/specs/device-side.md §3): CDP API keys for `/v1/*`, sent as
/// Basic `base64("<key>:")`, and legacy `site id:api key` pairs for `/push/events`.
/// With no key of a family configured, that family accepts any well-formed Basic
/// credentials (an open collector for quick local runs); a header is still required.
public struct CollectorCredentials: Sendable, Equatable {
    public var cdpAPIKeys: Set<String>
    /// `site id` → `api key`.
    public var legacyKeys: [String: String]

    public init(cdpAPIKeys: Set<String> = [], legacyKeys: [String: String] = [:]) {
        self.cdpAPIKeys = cdpAPIKeys
        self.legacyKeys = legacyKeys
    }

    /// Parses `SITE:KEY` as given to `--legacy-key`; nil when there is no colon or a side is empty.
    public static func legacyPair(_ text: String) -> (site: String, key: String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let site = String(text[..<colon]), key = String(text[text.index(after: colon)...])
        return site.isEmpty || key.isEmpty ? nil : (site, key)
    }

    /// Checks an `Authorization` header value for `route`.
    public func check(authorization: String?, route: CIOMetricRoute) throws(MetricRejection) {
        guard let authorization, !authorization.isEmpty else { throw .missingAuthorization(route: route) }
        let (user, password) = try Self.basicCredentials(authorization)
        switch route {
        case .track, .batch:
            // The SDK sends "<key>:" — the password part is not checked.
            try checkCDPKey(user, route: route)
        case .legacyEvents:
            guard !user.isEmpty, !password.isEmpty else { throw .unknownCredentials(route: route) }
            if !legacyKeys.isEmpty, legacyKeys[user] != password { throw .unknownCredentials(route: route) }
        }
    }

    /// Checks a CDP key (from Basic credentials or a `/v1/b` body's `writeKey`).
    public func checkCDPKey(_ key: String, route: CIOMetricRoute) throws(MetricRejection) {
        guard !key.isEmpty else { throw .unknownCredentials(route: route) }
        if !cdpAPIKeys.isEmpty, !cdpAPIKeys.contains(key) { throw .unknownCredentials(route: route) }
    }

    /// Splits `Basic <base64(user:password)>` into its two parts.
    static func basicCredentials(_ header: String) throws(MetricRejection) -> (String, String) {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic" else {
            throw .malformedAuthorization(detail: "expected the Basic scheme, got '\(parts.first.map { String($0.prefix(10)) } ?? "")'")
        }
        guard let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let text = String(data: data, encoding: .utf8) else {
            throw .malformedAuthorization(detail: "the credentials are not base64 of UTF-8 text")
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw .malformedAuthorization(detail: "the decoded credentials have no ':'")
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// `Basic base64(user:password)` — for clients and tests.
    public static func basicHeader(user: String, password: String = "") -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}
