import Foundation

/// Which client implementation carries a configuration's requests, decided in one place.
public enum HTTPTransportKind: String, Sendable, CaseIterable {
    /// `NGHTTP2Client`: HTTP/2 straight on nghttp2 + OpenSSL (the cheaper one).
    case nghttp2
    /// `HTTPClient`: libcurl, for everything (HTTP/1.1, proxies, client certificates).
    case curl
}

/// The client factory: `make` returns the transport asked for when it can serve the
/// configuration, and libcurl's `HTTPClient` when it cannot.
public enum HTTPTransports {
    /// The environment variables libcurl takes a proxy from; with any set, only libcurl can
    /// honour it.
    public static let proxyVariables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// The kind that will carry `configuration` when `preferred` is asked for, and why it is
    /// not the preferred one (nil when it is).
    public static func kind(for configuration: HTTPClientConfiguration, preferring preferred: HTTPTransportKind,
                            environment: [String: String] = ProcessInfo.processInfo.environment)
        -> (kind: HTTPTransportKind, reason: String?) {
        guard preferred == .nghttp2 else { return (.curl, nil) }
        if configuration.protocolMode == .http1 { return (.curl, "HTTP/1.1 mode needs libcurl") }
        if configuration.clientCertificate != nil { return (.curl, "TLS client certificates need libcurl") }
        if let variable = proxyVariables.first(where: { !(environment[$0] ?? "").isEmpty }) {
            return (.curl, "\(variable) is set and proxies need libcurl")
        }
        return (.nghttp2, nil)
    }

    /// A started client for `configuration`: `preferred` when it can serve it, else `HTTPClient`.
    public static func make(configuration: HTTPClientConfiguration, preferring preferred: HTTPTransportKind = .nghttp2,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws -> any LoopHTTPTransport {
        switch kind(for: configuration, preferring: preferred, environment: environment).kind {
        case .nghttp2: return try NGHTTP2Client(configuration: configuration)
        case .curl: return try HTTPClient(configuration: configuration)
        }
    }
}
