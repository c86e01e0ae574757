import Foundation
import PushAuth
import PushCore
import PushHTTP

/// Where APNs pushes go (docs/specs/apns.md "Connection").
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Scheme, host and port, no trailing slash, e.g. `https://api.push.apple.com:443`.
    public let baseURL: String
    public let isSandbox: Bool

    public static let productionHost = "api.push.apple.com"
    public static let sandboxHost = "api.sandbox.push.apple.com"

    /// Port 443, or 2197 for firewalls that only allow that.
    public static func production(port: Int = 443) -> APNsEndpoint {
        APNsEndpoint(baseURL: "https://\(productionHost):\(port)", isSandbox: false)
    }
    public static func sandbox(port: Int = 443) -> APNsEndpoint {
        APNsEndpoint(baseURL: "https://\(sandboxHost):\(port)", isSandbox: true)
    }
    /// Any server speaking the APNs protocol (the gateway emulator). A path after the host is
    /// ignored: requests always go to `/3/device/<token>`.
    public static func custom(_ url: String) throws(APNsEndpointError) -> APNsEndpoint {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty else {
            throw APNsEndpointError(url: url)
        }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        let port = components.port.map { ":\($0)" } ?? ""
        return APNsEndpoint(baseURL: "\(scheme)://\(hostPart)\(port)", isSandbox: host == sandboxHost)
    }

    public func url(forDeviceToken token: String) -> String { baseURL + "/3/device/" + token }
    public var description: String { baseURL }
}

public struct APNsEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    public var url: String
    public var description: String { "--url '\(url)' is not an http(s) URL with a host; e.g. https://localhost:8443" }
}

/// APNs accepted the push.
public struct APNsAcceptance: Sendable, Hashable {
    public var apnsID: String
    /// Sent by the sandbox only.
    public var uniqueID: String?
}

/// The answer to one push, after retries.
public struct APNsSendResult: Sendable {
    public enum Outcome: Sendable {
        case accepted(APNsAcceptance)
        case rejected(APNsRejection)
        /// No answer (connection, TLS, timeout) after the allowed attempts.
        case failed(HTTPClientError)
        /// Not sent: the token cannot be an APNs token, or no credential could be made.
        case notSent(String, reason: String)
    }
    public var token: String
    /// The apns-id the request carried.
    public var apnsID: String
    public var outcome: Outcome
    public var attempts: Int
    public var latency: Duration
    public var sentAt: Date

    public var isAccepted: Bool { if case .accepted = outcome { return true } else { return false } }

    public var report: DeliveryReport {
        var r = DeliveryReport(provider: .apns, target: token, id: apnsID, outcome: .accepted, attempts: attempts,
                               latency: latency, sentAt: sentAt)
        switch outcome {
        case .accepted(let a):
            r.id = a.apnsID
            r.status = 200
        case .rejected(let rejection):
            r.outcome = .rejected
            r.status = rejection.status
            r.reason = rejection.reasonName
            r.timestamp = rejection.timestamp
            r.prune = rejection.reason?.prunesToken ?? false
        case .failed(let error):
            r.outcome = .failed
            r.reason = error.failureName
            r.detail = error.description
        case .notSent(let why, let reason):
            r.outcome = .invalid
            r.reason = reason
            r.detail = why
            // Never sent, so APNs never said the token is dead: a token of the wrong kind (an
            // FCM token in an APNs list) may be alive, and must not reach --prune-file.
            r.prune = false
        }
        return r
    }
}

/// Sends pushes to APNs over any `HTTPTransport` (the libcurl HTTP/2 client in the CLI),
/// with token authentication and the shared retry policy.
public struct APNsClient: Sendable {
    public let endpoint: APNsEndpoint
    public var transport: any HTTPTransport
    public let credential: any APNsCredential
    public var retry: RetryPolicy
    public var sleeper: any RetrySleeper
    public var time: any TimeSource
    /// Receives a description of each request and answer, bearer redacted and token
    /// shortened (`--verbose`).
    public var log: (@Sendable (String) -> Void)?
    /// Per-request deadline.
    public var requestTimeout: Duration?

    public init(endpoint: APNsEndpoint, transport: any HTTPTransport, credential: any APNsCredential,
                retry: RetryPolicy = RetryPolicy(), sleeper: any RetrySleeper = TaskSleeper(),
                time: any TimeSource = SystemTimeSource(), log: (@Sendable (String) -> Void)? = nil,
                requestTimeout: Duration? = nil) {
        self.endpoint = endpoint
        self.transport = transport
        self.credential = credential
        self.retry = retry
        self.sleeper = sleeper
        self.time = time
        self.log = log
        self.requestTimeout = requestTimeout
    }

    /// Sends `push` to `token`. Never throws: every outcome is a result.
    /// - Parameter index: the message's position in a bulk send (picks its jitter stream).
    public func send(_ push: PreparedAPNsPush, to token: String, index: UInt64 = 0) async -> APNsSendResult {
        let apnsID = push.apnsID ?? APNsID.generate()
        let sentAt = time.now
        if push.validated, let problem = DeviceToken.problem(token, for: .apns) {
            return APNsSendResult(token: token, apnsID: apnsID,
                                  outcome: .notSent("\(problem)", reason: "NotSent:\(problem.code.rawValue)"),
                                  attempts: 0, latency: .zero, sentAt: sentAt)
        }
        let (outcome, attempts, latency) = await sendAttempts.run(
            messageIndex: index,
            credential: { try await credential.authorization() },
            renewCredential: { await credential.renew(afterRejecting: $0) },
            noCredential: { (.notSent("cannot make a provider token: \($0)", reason: "ProviderTokenError"), .never) },
            request: { request(push, to: token, apnsID: apnsID, authorization: $0) },
            classify: { classify($0, apnsID: apnsID) })
        return APNsSendResult(token: token, apnsID: apnsID, outcome: outcome, attempts: attempts,
                              latency: latency, sentAt: sentAt)
    }

    /// The request for one attempt; the same apns-id on every attempt of a push.
    public func request(_ push: PreparedAPNsPush, to token: String, apnsID: String, authorization: String) -> HTTPRequest {
        var fields: [HTTPHeader] = []
        fields.reserveCapacity(push.sharedHeaderFields.count + 3)
        if !authorization.isEmpty { fields.append(HTTPHeader("authorization", authorization)) }  // empty: certificate authentication
        fields += push.sharedHeaderFields
        fields.append(HTTPHeader("apns-id", apnsID))  // last of the apns-* fields, as in APNsRequest.headerFields
        fields.append(HTTPHeader("content-type", "application/json"))
        return HTTPRequest(method: "POST", url: endpoint.url(forDeviceToken: token), headers: HTTPHeaders(fields), body: push.payload,
                           timeout: requestTimeout, maxResponseBodyBytes: 64 * 1024)
    }

    private var sendAttempts: SendAttempts {
        SendAttempts(transport: transport, retry: retry, sleeper: sleeper, time: time, log: log)
    }

    /// What an APNs answer means: 200 is accepted, anything else a rejection with its reason.
    private func classify(_ response: HTTPResponse, apnsID: String) -> (outcome: APNsSendResult.Outcome, retryability: Retryability) {
        if response.status == 200 {
            let acceptance = APNsAcceptance(apnsID: response.headers["apns-id"] ?? apnsID,
                                            uniqueID: response.headers["apns-unique-id"])
            return (.accepted(acceptance), .never)
        }
        let body = APNsErrorBody(json: response.body)
        let rejection = APNsRejection(status: response.status, reason: body?.reason, timestamp: body?.timestamp,
                                      apnsID: response.headers["apns-id"] ?? apnsID)
        return (.rejected(rejection), rejection.retryability)
    }
}

/// How `--verbose` shows an exchange: never the bearer value, never a whole device token.
public enum RequestDescription {
    public static func render(_ request: HTTPRequest) -> String {
        var out = "→ \(request.method) \(redactedURL(request.url))"
        for h in request.headers {
            out += "\n  \(h.name): \(Redact.header(name: h.name, value: h.value))"
        }
        out += "\n  (\(request.body.count) bytes body)"
        return out
    }

    public static func render(_ response: HTTPResponse) -> String {
        var out = "← \(response.status) \(response.version.rawValue)"
        for h in response.headers { out += "\n  \(h.name): \(h.value)" }
        if !response.body.isEmpty { out += "\n  " + String(decoding: response.body.prefix(2048), as: UTF8.self) }
        return out
    }

    /// Shortens the device token in `/3/device/<token>`.
    static func redactedURL(_ url: String) -> String {
        guard let range = url.range(of: "/3/device/") else { return url }
        let token = String(url[range.upperBound...])
        return String(url[..<range.upperBound]) + Redact.token(token)
    }
}
