import Foundation
import PushCore
import PushHTTP
import PushAuth
import Synchronization

/// Sends FCM HTTP v1 `messages:send` requests over any `HTTPTransport`, with an OAuth2
/// access token and the shared retry policy (docs/specs/fcm.md "Send").
public struct FCMClient: Sendable {
    /// `https://fcm.googleapis.com`, or the emulator's base URL.
    public let baseURL: String
    public let projectID: String
    public var transport: any HTTPTransport
    public let credential: any FCMAccessTokenProvider
    public var retry: RetryPolicy
    public var sleeper: any RetrySleeper
    public var time: any TimeSource
    public var log: (@Sendable (String) -> Void)?
    public var requestTimeout: Duration?

    public static let defaultBaseURL = "https://fcm.googleapis.com"

    public init(baseURL: String = FCMClient.defaultBaseURL, projectID: String, transport: any HTTPTransport,
                credential: any FCMAccessTokenProvider, retry: RetryPolicy = RetryPolicy(),
                sleeper: any RetrySleeper = TaskSleeper(), time: any TimeSource = SystemTimeSource(),
                log: (@Sendable (String) -> Void)? = nil, requestTimeout: Duration? = nil) {
        self.baseURL = Self.trimmed(baseURL)
        self.projectID = projectID
        sendURL = Self.sendURL(baseURL: baseURL, projectID: projectID)
        self.transport = transport
        self.credential = credential
        self.retry = retry
        self.sleeper = sleeper
        self.time = time
        self.log = log
        self.requestTimeout = requestTimeout
    }

    /// `<baseURL>/v1/projects/<projectID>/messages:send`, built once: every message goes there.
    public let sendURL: String

    /// The `sendURL` of a client made with `baseURL` and `projectID`.
    public static func sendURL(baseURL: String, projectID: String) -> String {
        trimmed(baseURL) + FCMPath.send(project: projectID)
    }

    private static func trimmed(_ baseURL: String) -> String {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// Sends `message` to `target`. Never throws: every outcome is a result.
    /// - Parameter checkTarget: refuse a target of the wrong shape (e.g. an APNs token) before sending.
    /// Runs on the caller's executor (`nonisolated(nonsending)`), like `APNsClient.send`.
    public nonisolated(nonsending) func send(_ message: PreparedFCMMessage, to target: FCMTarget, index: UInt64 = 0,
                                             checkTarget: Bool = true) async -> FCMSendResult {
        let sentAt = time.now
        if checkTarget, let problem = target.problem {
            return FCMSendResult(target: target, outcome: .notSent(problem, reason: FCMErrorCode.invalidArgument.rawValue),
                                 attempts: 0, latency: .zero, sentAt: sentAt)
        }
        let body = message.body(for: target)
        let (outcome, attempts, latency) = await sendAttempts.run(
            messageIndex: index,
            credential: { try await credential.bearerToken() },
            renewCredential: { await credential.renew(afterRejecting: $0) },
            noCredential: { error in
                // A token endpoint that is down is a failed push (exit 1), retried like FCM itself;
                // a refused service account is an input problem: nothing was or can be sent.
                if let oauth = error as? OAuthError, oauth.isTransient {
                    return (.noAccessToken(oauth), .withBackoff)
                }
                return (.notSent("cannot get an access token: \(error)", reason: "AccessTokenError"), .never)
            },
            request: { request(body: body, accessToken: $0) },
            classify: Self.classify)
        return FCMSendResult(target: target, outcome: outcome, attempts: attempts, latency: latency, sentAt: sentAt)
    }

    public func request(body: [UInt8], accessToken: String) -> HTTPRequest {
        let headers = HTTPHeaders([HTTPHeader("authorization", authorization.value(for: accessToken)),
                                   HTTPHeader("content-type", "application/json; charset=utf-8")])
        return HTTPRequest(method: "POST", url: sendURL, headers: headers, body: body, timeout: requestTimeout,
                           maxResponseBodyBytes: 256 * 1024)
    }

    /// The `authorization` value for the access token last used: a bulk send's messages carry
    /// the same token for up to an hour, so the value is built once per token, not per message.
    private let authorization = BearerValue()

    private var sendAttempts: SendAttempts {
        SendAttempts(transport: transport, retry: retry, sleeper: sleeper, time: time, log: log)
    }

    /// What an FCM answer means: 200 is accepted, anything else an `FCMError` (docs/specs/fcm.md "Errors").
    static func classify(_ response: HTTPResponse) -> (outcome: FCMSendResult.Outcome, retryability: Retryability) {
        if response.status == 200 {
            // A 200 without a name still means FCM accepted it; never resend an accepted message.
            return (.accepted(name: messageName(in: response.body) ?? ""), .never)
        }
        let error = FCMError(httpStatus: response.status, body: response.body)
        return (.rejected(error), error.retryability)
    }

    /// `{"name": "projects/<p>/messages/<id>"}` → the name. FCM's answer to every accepted
    /// message has that one member, read without building a document; anything else (escapes,
    /// more members) goes through the JSON parser.
    static func messageName(in body: [UInt8]) -> String? {
        if let name = onlyNameMember(body) { return name }
        guard let doc = try? JSONDocument.parse(body) else { return nil }
        return doc.root["name"]?.stringValue
    }

    /// The value of `body` when it is exactly `{"name": "<value>"}` (whitespace allowed between
    /// tokens) and the value is ASCII without escapes or control characters; nil otherwise.
    static func onlyNameMember(_ body: [UInt8]) -> String? {
        var at = 0
        func skipSpace() { while at < body.count, body[at] == 0x20 || body[at] == 0x0A || body[at] == 0x0D || body[at] == 0x09 { at += 1 } }
        func take(_ bytes: String.UTF8View) -> Bool {
            for byte in bytes {
                guard at < body.count, body[at] == byte else { return false }
                at += 1
            }
            return true
        }
        skipSpace()
        guard take("{".utf8) else { return nil }
        skipSpace()
        guard take(#""name""#.utf8) else { return nil }
        skipSpace()
        guard take(":".utf8) else { return nil }
        skipSpace()
        guard take(#"""#.utf8) else { return nil }
        let start = at
        while at < body.count, body[at] != 0x22 {
            guard body[at] >= 0x20, body[at] < 0x80, body[at] != 0x5C else { return nil }
            at += 1
        }
        let end = at
        guard take(#"""#.utf8) else { return nil }
        skipSpace()
        guard take("}".utf8) else { return nil }
        skipSpace()
        guard at == body.count else { return nil }
        return String(decoding: body[start..<end], as: UTF8.self)
    }
}

/// "Bearer <access token>" for the token last seen (`FCMClient.request`).
final class BearerValue: Sendable {
    private let last = Mutex<(token: String, value: String)>(("", ""))

    func value(for token: String) -> String {
        last.withLock { last in
            if last.token != token || last.value.isEmpty { last = (token, "Bearer " + token) }
            return last.value
        }
    }
}
