import Foundation
import PushCore
import PushHTTP

/// One try at reporting `delivered`.
public struct MetricAttempt: Sendable, Codable, Equatable {
    public var atMs: Int64
    /// HTTP status, when a response arrived.
    public var status: Int?
    public var error: String?
}

/// What became of the delivered metric.
public struct DeliveredMetricOutcome: Sendable, Codable, Equatable {
    public enum Result: String, Sendable, Codable {
        /// 2xx with a body: the SDK counts it as sent and removes the pending row.
        case acknowledged
        case failed
        /// The budget expired (or the process died) with the request in flight: the server may
        /// or may not have it; the pending row stays.
        case cancelled
        /// `autoTrackPushEvents` is off: the SDK sends nothing.
        case skipped
    }
    public var url: String?
    public var result: Result
    public var attempts: [MetricAttempt]
}

/// Sends `delivered` the way the profile's SDK mode does (docs/specs/device-side.md §3):
/// `cio-4` one attempt; `cio-legacy` the 2.x retry ladder on 5xx; `improved` retries network
/// errors, 429 and 5xx with doubling back-off until its deadline.
public struct DeliveredMetricReporter: Sendable {
    public var profile: AppProfile
    public var transport: any HTTPTransport
    public var clock: any NSEClock
    public var wallClock: any TimeSource

    /// The 2.x SDK's back-off ladder for 5xx.
    public static let legacyBackoff: [Duration] = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2].map { .milliseconds(Int64($0 * 1000)) }

    public init(profile: AppProfile, transport: any HTTPTransport, clock: any NSEClock, wallClock: any TimeSource) {
        self.profile = profile
        self.transport = transport
        self.clock = clock
        self.wallClock = wallClock
    }

    /// The request for one attempt.
    public func request(deliveryID: String, deliveryToken: String) -> HTTPRequest {
        let endpoint = profile.metricsEndpoint
        switch profile.sdkMode {
        case .cio4:
            return endpoint.request(.track, body: CIOMetricBody.track(deliveryID: deliveryID, recipient: deliveryToken).minifiedBytes(),
                                    userAgent: profile.nseUserAgent, timeout: nil)
        case .improved:
            return endpoint.request(.track, body: CIOMetricBody.track(deliveryID: deliveryID, recipient: deliveryToken,
                                                                       messageId: CIOMetricBody.dedupKey(deliveryID: deliveryID)).minifiedBytes(),
                                    userAgent: profile.nseUserAgent, timeout: nil)
        case .cioLegacy:
            return endpoint.request(.legacyEvents,
                                    body: CIOMetricBody.legacy(deliveryID: deliveryID, deviceToken: deliveryToken, timestamp: wallClock.now).minifiedBytes(),
                                    userAgent: profile.nseUserAgent, timeout: nil)
        }
    }

    /// Sends until acknowledged, refused, or no room is left before `deadline` (emulated time) for
    /// another try. `onAttempt` reports each attempt that ended before the deadline.
    ///
    /// nil: the metric had not settled when `deadline` came — an attempt ended at that instant or
    /// later (by an answer, an error, or its own timeout, which the deadline bounds and which
    /// counts at the instant it was set for, whenever the transport's timer fired) — so the
    /// run's deadline ends the run first and cancels the request, whatever the machine's load
    /// (docs/specs/device-side.md §2 step 5).
    public func send(deliveryID: String, deliveryToken: String, deadline: Duration,
                     onAttempt: @Sendable (MetricAttempt) -> Void = { _ in }) async -> DeliveredMetricOutcome? {
        var request = request(deliveryID: deliveryID, deliveryToken: deliveryToken)
        var attempts: [MetricAttempt] = []
        var backoff: Duration = profile.sdkMode == .improved ? .milliseconds(250) : .zero
        var retry = 0
        while true {
            let left = deadline - clock.now()
            if left <= .zero { return nil }
            let timeout = min(left, CIONSESession.resourceTimeout)
            let started = clock.now()
            request.timeout = clock.realDuration(timeout)
            var attempt = MetricAttempt(atMs: started.milliseconds)
            var retryable = false
            do {
                let response = try await transport.send(request)
                if clock.now() >= deadline { return nil }
                attempt.status = response.status
                if (200..<300).contains(response.status) && !response.body.isEmpty {
                    attempts.append(attempt); onAttempt(attempt)
                    return DeliveredMetricOutcome(url: request.url, result: .acknowledged, attempts: attempts)
                }
                retryable = response.status >= 500 || (profile.sdkMode == .improved && response.status == 429)
            } catch {
                if Task.isCancelled || error is CancellationError || (error as? HTTPClientError) == .cancelled {
                    attempt.error = "cancelled"
                    attempts.append(attempt); onAttempt(attempt)
                    return DeliveredMetricOutcome(url: request.url, result: .cancelled, attempts: attempts)
                }
                // The attempt's own timeout ends it at `started + timeout` in the model, whenever
                // the transport's timer fired in real time; any other failure when it came.
                if case .timedOut? = error as? HTTPClientError {
                    if started + timeout >= deadline { return nil }
                } else if clock.now() >= deadline {
                    return nil
                }
                attempt.error = "\(error)"
                retryable = profile.sdkMode == .improved
            }
            attempts.append(attempt); onAttempt(attempt)
            guard retryable, profile.sdkMode != .cio4 else { break }
            let wait: Duration
            if profile.sdkMode == .cioLegacy {
                guard retry < DeliveredMetricReporter.legacyBackoff.count else { break }
                wait = DeliveredMetricReporter.legacyBackoff[retry]
            } else {
                wait = backoff
                backoff = backoff * 2
            }
            retry += 1
            guard clock.now() + wait < deadline else { break }
            do { try await clock.sleep(until: clock.now() + wait) } catch {
                return DeliveredMetricOutcome(url: request.url, result: .cancelled, attempts: attempts)
            }
        }
        return DeliveredMetricOutcome(url: request.url, result: .failed, attempts: attempts)
    }
}
