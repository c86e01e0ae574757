import Foundation
import PushCore
import PushHTTP
import Synchronization

/// An OAuth2 access token. `description` never shows the value.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    public let value: String
    public let tokenType: String
    public let expiresAt: Date

    public init(value: String, tokenType: String = "Bearer", expiresAt: Date) {
        self.value = value
        self.tokenType = tokenType
        self.expiresAt = expiresAt
    }

    /// The `authorization` header value.
    public var authorization: String { "Bearer \(value)" }
    public var description: String { "AccessToken(\(tokenType) <redacted>, expires \(expiresAt))" }
    /// `dump()` and debuggers show the same redacted view.
    public var customMirror: Mirror {
        Mirror(self, children: ["value": "<redacted>", "tokenType": tokenType, "expiresAt": expiresAt])
    }
}

/// Why an access token could not be obtained. Never includes the assertion or a token.
public enum OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token endpoint answered with the OAuth error shape (RFC 6749 §5.2).
    case rejected(status: Int, error: String, description: String?)
    /// A non-2xx answer without the OAuth error shape.
    case unexpectedStatus(status: Int, body: String)
    /// 200, but no usable `access_token` in it.
    case malformedResponse(String)
    /// The request never got an answer (connection, TLS, timeout).
    case transport(HTTPClientError)
    case assertion(JWTError)

    public var reason: String {
        switch self {
        case .rejected(let status, let error, let description):
            return "the token endpoint refused the assertion (HTTP \(status), \(error)\(description.map { ": \($0)" } ?? ""))"
        case .unexpectedStatus(let status, let body):
            return "the token endpoint answered HTTP \(status)\(body.isEmpty ? "" : ": \(body)")"
        case .malformedResponse(let why): return "the token endpoint's answer is not usable: \(why)"
        case .transport(let why): return "could not reach the token endpoint: \(why)"
        case .assertion(let error): return "could not sign the assertion: \(error)"
        }
    }

    public var fix: String {
        switch self {
        case .rejected(_, let error, let description):
            switch error {
            case "invalid_grant" where description?.contains("account not found") == true:
                return "the token endpoint does not know this client_email; for pushlab serve, start it with --service-account FILE so it trusts the account (it trusts only certs/fcm-service-account.json by default)"
            case "invalid_grant":
                return "check the machine clock (iat/exp must be current) and that the key (private_key_id) still exists for client_email"
            case "invalid_client", "unauthorized_client":
                return "the service account or its key was deleted or disabled; create a new JSON key"
            case "invalid_scope":
                return "the scope is not allowed for this account"
            default:
                return "check the service-account file and its token_uri"
            }
        case .unexpectedStatus, .malformedResponse:
            return "check token_uri in the service-account file (it must be Google's token endpoint or the emulator's /token)"
        case .transport:
            return "check the network and token_uri; for the local emulator pass its CA with --ca-file, and its URL with send fcm --url https://localhost:PORT (the token then comes from PORT/token, whatever token_uri says)"
        case .assertion:
            return "check the private_key in the service-account file"
        }
    }

    public var description: String { "\(reason). Fix: \(fix)." }

    /// Whether asking again may succeed: an endpoint that could not be reached, a 5xx or a 429
    /// is transient (the token request is retried like a push); a refused assertion is not.
    public var isTransient: Bool {
        switch self {
        case .transport(let error):
            switch error {
            case .connectFailed, .timedOut, .protocolError: return true
            case .invalidURL, .tlsFailed, .cancelled, .responseTooLarge, .tooManyRedirects, .shutDown: return false
            }
        case .rejected(let status, _, _), .unexpectedStatus(let status, _): return status == 429 || status >= 500
        case .malformedResponse, .assertion: return false
        }
    }
}

/// Mints FCM access tokens from a service account (docs/specs/fcm.md "Access token"): an RS256 assertion
/// POSTed to `token_uri`, the answer cached until `refreshMargin` before it expires. Concurrent
/// callers share one exchange: the actor keeps the in-flight request and everyone awaits it.
public actor OAuthTokenSource {
    public static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Google's assertions may live at most one hour (exp ≤ iat + 3600).
    public static let assertionLifetime: Int64 = 3600

    public nonisolated let account: ServiceAccount
    public nonisolated let scope: String
    public nonisolated let refreshMargin: TimeInterval
    private let transport: any HTTPTransport
    private let time: any TimeSource
    /// The token in use. Behind a mutex rather than only in the actor so `currentAccessToken()`
    /// can read it without entering the actor: an FCM bulk send asks for it before every
    /// request, and entering the actor and returning to the caller's executor costs two
    /// scheduled jobs each time (benchmarks/results/design-measurements.md).
    private let cache = Mutex<AccessToken?>(nil)
    private var cached: AccessToken? {
        get { cache.withLock { $0 } }
        set { cache.withLock { $0 = newValue } }
    }
    private var inFlight: Task<AccessToken, any Error>?
    private var exchanges = 0

    public init(account: ServiceAccount, transport: any HTTPTransport, timeSource: any TimeSource = SystemTimeSource(),
                scope: String = OAuthTokenSource.firebaseMessagingScope, refreshMargin: TimeInterval = 5 * 60) {
        self.account = account
        self.transport = transport
        self.time = timeSource
        self.scope = scope
        self.refreshMargin = refreshMargin
    }

    /// The cached token while it is valid (more than `refreshMargin` before it expires), else
    /// nil: then `accessToken()` fetches one. Callable from any thread without awaiting.
    public nonisolated func currentAccessToken() -> AccessToken? {
        let now = time.now
        return cache.withLock { token in
            guard let token, now < token.expiresAt.addingTimeInterval(-refreshMargin) else { return nil }
            return token
        }
    }

    /// A valid access token: the cached one, or a fresh one from `token_uri`.
    public func accessToken() async throws(OAuthError) -> AccessToken {
        if let current = currentAccessToken() { return current }
        let task: Task<AccessToken, any Error>
        if let inFlight {
            task = inFlight
        } else {
            exchanges += 1
            let request: HTTPRequest
            do { request = try makeRequest() } catch { throw .assertion(error) }
            let transport = self.transport, time = self.time
            task = Task { try await OAuthTokenSource.exchange(request, transport: transport, time: time) }
            inFlight = task
        }
        do {
            let token = try await task.value
            if inFlight == task { inFlight = nil; cached = token }
            return token
        } catch {
            if inFlight == task { inFlight = nil }
            throw (error as? OAuthError) ?? .transport(.protocolError(String(describing: error)))
        }
    }

    /// Forget the cached token (after FCM answered 401 for it), so the next call mints anew.
    public func invalidate(_ token: AccessToken) {
        if cached == token { cached = nil }
    }

    /// The same, keyed by the bare token value a request carried. Returns true when the
    /// rejected token is gone from the cache, so the next `accessToken()` yields another one
    /// (false only while nothing newer can be had: never, since the exchange is not rate-limited).
    @discardableResult
    public func invalidate(afterRejecting value: String) -> Bool {
        let bare = BearerAuthorization.token(in: value).map(String.init) ?? value
        if cached?.value == bare { cached = nil }
        return true
    }

    /// How many token requests were sent (tests, diagnostics).
    public var exchangeCount: Int { exchanges }

    /// The RS256 assertion for `now` (docs/specs/fcm.md: iss, scope, aud = token_uri, iat, exp ≤ iat+3600).
    public nonisolated func assertion(issuedAt now: Date) throws(JWTError) -> String {
        let iat = Int64(now.timeIntervalSince1970.rounded(.down))
        return try JWT.sign(header: JWTHeader(alg: .rs256, kid: account.privateKeyID, typ: "JWT"),
                            claims: JWTClaims(iss: account.clientEmail, aud: [account.tokenURI], scope: scope,
                                              iat: iat, exp: iat + OAuthTokenSource.assertionLifetime),
                            key: account.privateKey)
    }

    private func makeRequest() throws(JWTError) -> HTTPRequest {
        let jwt = try assertion(issuedAt: time.now)
        // The JWT alphabet (base64url and '.') needs no form escaping.
        let body = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)"
        return HTTPRequest(method: "POST", url: account.tokenURI,
                           headers: ["content-type": "application/x-www-form-urlencoded", "accept": "application/json"],
                           body: Array(body.utf8), timeout: .seconds(30), maxResponseBodyBytes: 64 * 1024)
    }

    private static func exchange(_ request: HTTPRequest, transport: any HTTPTransport,
                                 time: any TimeSource) async throws -> AccessToken {
        let sentAt = time.now
        let response: HTTPResponse
        do { response = try await transport.send(request) } catch let error as HTTPClientError {
            throw OAuthError.transport(error)
        } catch {
            throw OAuthError.transport(.protocolError(String(describing: error)))
        }
        return try OAuthTokenResponse.parse(response, sentAt: sentAt)
    }
}

/// The token endpoint's answer (RFC 6749 §5.1 success, §5.2 error; Google's RPC error shape too).
enum OAuthTokenResponse {
    static func parse(_ response: HTTPResponse, sentAt: Date) throws(OAuthError) -> AccessToken {
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        guard (200..<300).contains(response.status) else {
            if let error = json?["error"] as? String {
                throw .rejected(status: response.status, error: error, description: json?["error_description"] as? String)
            }
            if let error = json?["error"] as? [String: Any] {  // {"error": {"code", "message", "status"}}
                throw .rejected(status: response.status, error: (error["status"] as? String) ?? "error",
                                description: error["message"] as? String)
            }
            throw .unexpectedStatus(status: response.status, body: snippet(response.bodyText))
        }
        guard let json else { throw .malformedResponse("the body is not a JSON object") }
        guard let value = json["access_token"] as? String, !value.isEmpty else {
            throw .malformedResponse("no access_token")
        }
        let type = (json["token_type"] as? String) ?? "Bearer"
        guard type.caseInsensitiveCompare("bearer") == .orderedSame else {
            throw .malformedResponse("token_type '\(type)' is not Bearer")
        }
        // expires_in is seconds from when the request was sent (RFC 6749 §5.1); default one hour.
        let lifetime: TimeInterval
        switch json["expires_in"] {
        case nil: lifetime = 3600
        case let number as NSNumber where !(number is Bool): lifetime = number.doubleValue
        case let text as String: guard let n = TimeInterval(text) else { throw .malformedResponse("expires_in is not a number") }; lifetime = n
        default: throw .malformedResponse("expires_in is not a number")
        }
        guard lifetime > 0 else { throw .malformedResponse("expires_in is not positive") }
        return AccessToken(value: value, tokenType: type, expiresAt: sentAt.addingTimeInterval(lifetime))
    }

    /// A short, JWT-free excerpt of an unexpected body for the error message.
    static func snippet(_ body: String) -> String {
        let words = body.prefix(200).split(separator: " ", omittingEmptySubsequences: false).map { word in
            word.contains("eyJ") ? "<redacted>" : String(word)
        }
        return words.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
