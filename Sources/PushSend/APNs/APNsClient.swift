import Foundation
import PushAuth
import PushCore
import PushHTTP

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
    /// Runs on the caller's executor (`nonisolated(nonsending)`): in a bulk send, the HTTP
    /// client's loop, with no executor hop between here and the client.
    public nonisolated(nonsending) func send(_ push: PreparedAPNsPush, to token: String, index: UInt64 = 0) async -> APNsSendResult {
        // With `onlyGivenHeaders` and no apns-id given, none is sent: APNs makes one and answers with it.
        let apnsID = push.apnsID ?? (push.onlyGivenHeaders ? nil : APNsID.generate())
        let sentAt = time.now
        if push.validated, let problem = DeviceToken.problem(token, for: .apns) {
            return APNsSendResult(token: token, apnsID: apnsID ?? "",
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
        return APNsSendResult(token: token, apnsID: apnsID ?? "", outcome: outcome, attempts: attempts,
                              latency: latency, sentAt: sentAt)
    }

    /// The request for one attempt; the same apns-id on every attempt of a push.
    public func request(_ push: PreparedAPNsPush, to token: String, apnsID: String?, authorization: String) -> HTTPRequest {
        var fields: [HTTPHeader] = []
        fields.reserveCapacity(push.sharedHeaderFields.count + 3)
        if !authorization.isEmpty { fields.append(HTTPHeader(APNsHeader.authorization, authorization)) }  // empty: certificate authentication
        fields += push.sharedHeaderFields
        if let apnsID { fields.append(HTTPHeader(APNsHeader.id, apnsID)) }  // last of the apns-* fields, as in APNsRequest.headerFields
        fields.append(HTTPHeader("content-type", "application/json"))
        return HTTPRequest(method: "POST", url: endpoint.url(forDeviceToken: token), headers: HTTPHeaders(fields), body: push.payload,
                           timeout: requestTimeout, maxResponseBodyBytes: 64 * 1024)
    }

    private var sendAttempts: SendAttempts {
        SendAttempts(transport: transport, retry: retry, sleeper: sleeper, time: time, log: log)
    }

    /// What an APNs answer means: 200 is accepted, anything else a rejection with its reason.
    private func classify(_ response: HTTPResponse, apnsID: String?) -> (outcome: APNsSendResult.Outcome, retryability: Retryability) {
        if response.status == 200 {
            let acceptance = APNsAcceptance(apnsID: response.headers[APNsHeader.id] ?? apnsID ?? "",
                                            uniqueID: response.headers[APNsHeader.uniqueID])
            return (.accepted(acceptance), .never)
        }
        let body = APNsErrorBody(json: response.body)
        let rejection = APNsRejection(status: response.status, reason: body?.reason, timestamp: body?.timestamp,
                                      apnsID: response.headers[APNsHeader.id] ?? apnsID ?? "")
        return (.rejected(rejection), rejection.retryability)
    }
}
