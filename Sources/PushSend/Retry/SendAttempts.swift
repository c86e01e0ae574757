import Foundation
import PushCore
import PushHTTP

/// The outcomes every client reports without asking its provider: no answer came back, or
/// nothing could be sent. `APNsSendResult.Outcome` and `FCMSendResult.Outcome` have these cases.
protocol AttemptOutcome: Sendable {
    static func failed(_ error: HTTPClientError) -> Self
    static func notSent(_ why: String, reason: String) -> Self
}

extension APNsSendResult.Outcome: AttemptOutcome {}
extension FCMSendResult.Outcome: AttemptOutcome {}

/// The attempts of one push, the same for `APNsClient` and `FCMClient` (docs/specs/apns.md "Retry policy",
/// docs/specs/fcm.md "Errors"): get the credential, send the request, show both sides to `log`
/// (`--verbose`), turn a transport error into `.failed`, let the client classify the answer,
/// read `Retry-After`, and go again as `RetryPolicy` decides, renewing a rejected credential
/// once. What an answer means stays with each client (`classify`).
struct SendAttempts {
    var transport: any HTTPTransport
    var retry: RetryPolicy
    var sleeper: any RetrySleeper
    var time: any TimeSource
    var log: (@Sendable (String) -> Void)?

    /// - Parameters:
    ///   - messageIndex: the push's position in a bulk send (picks its jitter stream).
    ///   - credential: the credential value for the next request (`request` gets it).
    ///   - renewCredential: mints a fresh credential after the provider rejected `rejected`.
    ///   - noCredential: the outcome when `credential` throws (nothing is sent), and whether to
    ///     try again (an access-token endpoint that is down is retried like the provider).
    ///   - classify: what a provider's answer means, and whether it may be retried.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`, as do `credential` and the
    /// transport's `send`): in a bulk send that is the HTTP client's loop, and each executor
    /// hop on the way (a task switch that checks the task's executor preference under a lock)
    /// was a measurable part of the cost per push (benchmarks/results/design-measurements.md).
    nonisolated(nonsending) func run<Outcome: AttemptOutcome>(
        messageIndex: UInt64,
        credential: nonisolated(nonsending) () async throws -> String,
        renewCredential: (_ rejected: String) async -> Bool,
        noCredential: (any Error) -> (Outcome, Retryability),
        request: (_ credential: String) -> HTTPRequest,
        classify: (HTTPResponse) -> (outcome: Outcome, retryability: Retryability)
    ) async -> (outcome: Outcome, attempts: Int, latency: Duration) {
        let clock = ContinuousClock()
        let started = clock.now
        var lastCredential = ""
        let (outcome, attempts) = await retry.execute(
            messageIndex: messageIndex, sleeper: sleeper,
            renewCredential: { await renewCredential(lastCredential) },
            attempt: { _ in
                let value: String
                do {
                    value = try await credential()
                } catch {
                    let (outcome, retryability) = noCredential(error)
                    return RetryStep(outcome, retryability: retryability)
                }
                lastCredential = value
                return await exchange(request(value), classify: classify)
            })
        return (outcome, attempts, clock.now - started)
    }

    /// One request and its answer, as the retry loop sees it.
    private nonisolated(nonsending) func exchange<Outcome: AttemptOutcome>(
        _ request: HTTPRequest, classify: (HTTPResponse) -> (outcome: Outcome, retryability: Retryability)
    ) async -> RetryStep<Outcome> {
        if let log { log(RequestDescription.render(request)) }
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as HTTPClientError {
            log?("  ✗ \(error)")
            return RetryStep(.failed(error), retryability: error.retryability)
        } catch {
            log?("  ✗ \(error)")
            return RetryStep(.failed(.protocolError("\(error)")), retryability: .withBackoff)
        }
        if let log { log(RequestDescription.render(response)) }
        let (outcome, retryability) = classify(response)
        // RetryPolicy only reads Retry-After for answers it may retry after a delay.
        return RetryStep(outcome, retryability: retryability,
                         retryAfter: RetryAfter.parse(response.headers["retry-after"], now: time.now))
    }
}
