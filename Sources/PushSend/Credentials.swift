import Foundation
import PushCore
import PushAuth
import PushHTTP

/// Supplies the `authorization` value of an APNs request (`bearer <provider JWT>`). The real
/// one wraps PushAuth's `ProviderTokenCache`; tests can hand in a fixed token.
public protocol APNsCredential: Sendable {
    /// The `authorization` header value for the next request.
    func authorization() async throws -> String
    /// Called after APNs answered ExpiredProviderToken to a request that carried `rejected`.
    /// Returns true when a fresh token is ready (mint at most once per rejected token, and
    /// never inside the provider's 20-minute floor).
    func renew(afterRejecting rejected: String) async -> Bool
}

/// Supplies the OAuth2 access token of an FCM request. The real one wraps PushAuth's
/// `OAuthTokenSource`.
public protocol FCMAccessTokenProvider: Sendable {
    /// The bare access token (the client adds `Bearer `).
    func bearerToken() async throws -> String
    /// Called after FCM answered 401 to a request that carried `rejected`; true when a fresh
    /// token is ready.
    func renew(afterRejecting rejected: String) async -> Bool
}

/// Certificate-based authentication (docs/specs/apns.md "Certificate authentication"): the TLS
/// client certificate authenticates the connection, so requests carry no `authorization`
/// header (an empty value means none) and there is nothing to renew.
public struct CertificateCredential: APNsCredential {
    public init() {}
    public func authorization() async throws -> String { "" }
    public func renew(afterRejecting rejected: String) async -> Bool { false }
}

extension APNsClientCertificate {
    /// What the HTTP client presents in the TLS handshake.
    public var clientCertificate: HTTPClientConfiguration.ClientCertificate {
        switch tls {
        case .pem(let certificateFile, let keyFile): return .init(file: certificateFile, format: .pem(keyFile: keyFile))
        case .pkcs12(let file, let password): return .init(file: file, format: .pkcs12(password: password))
        }
    }
}

/// A credential that never changes (tests; a token minted elsewhere).
public struct FixedCredential: APNsCredential, FCMAccessTokenProvider {
    public let value: String
    public init(_ value: String) { self.value = value }
    public func authorization() async throws -> String { "bearer \(value)" }
    public func bearerToken() async throws -> String { value }
    public func renew(afterRejecting rejected: String) async -> Bool { false }
}

/// Spreads requests over several transports (`--connections N`: one `HTTPClient` each, so
/// each holds its own HTTP/2 connection), in turn.
public final class RoundRobinTransport: HTTPTransport {
    private let transports: [any HTTPTransport]
    private let next = Counter()

    public init(_ transports: [any HTTPTransport]) {
        precondition(!transports.isEmpty, "RoundRobinTransport needs at least one transport")
        self.transports = transports
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await transports[next.increment() % transports.count].send(request)
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0  // protected by `lock`
    /// Returns the value before incrementing.
    func increment() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

extension HTTPClientError {
    /// Whether the request may be sent again. The request got no answer, so it was not
    /// accepted: retrying cannot deliver it twice as far as the client can know
    /// (docs/specs/apns.md: GOAWAY/REFUSED_STREAM/connection failures are retried on a new connection).
    /// TLS and URL problems are configuration errors: retrying gives the same failure.
    var retryability: Retryability {
        switch self {
        case .connectFailed, .timedOut, .protocolError: return .withBackoff
        case .invalidURL, .tlsFailed, .cancelled, .responseTooLarge, .tooManyRedirects, .shutDown: return .never
        }
    }

    /// A short name for results files and history.
    var failureName: String {
        switch self {
        case .invalidURL: return "InvalidURL"
        case .connectFailed: return "ConnectFailed"
        case .tlsFailed: return "TLSFailed"
        case .timedOut: return "TimedOut"
        case .cancelled: return "Cancelled"
        case .responseTooLarge: return "ResponseTooLarge"
        case .tooManyRedirects: return "TooManyRedirects"
        case .protocolError: return "ProtocolError"
        case .shutDown: return "ClientShutDown"
        }
    }
}

/// PushAuth's provider-token cache is the real APNs credential: one token reused, refreshed
/// at ~50 minutes, re-minted once after ExpiredProviderToken (never inside the 20-minute floor).
extension ProviderTokenCache: APNsCredential {
    public func authorization() async throws -> String { try token().authorization }

    public func renew(afterRejecting rejected: String) async -> Bool {
        let jwt = rejected.split(separator: " ", maxSplits: 1).last.map(String.init) ?? rejected
        guard let renewal = try? invalidate(after: jwt) else { return false }
        if case .renewed = renewal { return true }
        return false
    }
}

/// PushAuth's OAuth2 token source is the real FCM credential: the access token cached and
/// refreshed before expiry, one exchange under concurrency.
extension OAuthTokenSource: FCMAccessTokenProvider {
    /// Nonisolated, so a valid cached token is returned on the caller's executor (the HTTP
    /// client's loop in a bulk send) without entering the actor and coming back (two jobs
    /// scheduled per message); only a refresh goes through the actor.
    public nonisolated func bearerToken() async throws -> String {
        if let current = currentAccessToken() { return current.value }
        return try await accessToken().value
    }

    public func renew(afterRejecting rejected: String) async -> Bool {
        guard let current = try? await accessToken() else { return false }
        if current.value == rejected {
            invalidate(current)
            return (try? await accessToken()) != nil
        }
        return true  // someone already replaced the rejected token
    }
}
