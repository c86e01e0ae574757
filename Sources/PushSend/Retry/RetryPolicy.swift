import Foundation
import PushCore

/// How a sender retries one push (docs/specs/apns.md "Retry policy", docs/specs/fcm.md "Errors"): exponential
/// backoff with per-message jitter, `Retry-After` honoured, never-retry answers never retried,
/// an expired credential renewed once. One value serves the APNs and the FCM client.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in total, the first one included. Default 4 (1 s, 2 s, 4 s between them).
    public var maxAttempts: Int
    /// Delay before the first retry; doubled for each further one. Default 1 s (docs/specs/fcm.md).
    public var baseDelay: Duration
    /// Cap of the backoff delay. Default 30 s.
    public var maxDelay: Duration
    /// Up to this fraction of the backoff is added at random, per message, so a burst of
    /// failures does not come back as a burst. Default 0.5.
    public var jitter: Double
    /// The longest `Retry-After` honoured; a server asking for more gets the push reported as
    /// failed instead of the sender hanging. Default 60 s.
    public var maxRetryAfter: Duration
    /// Seed of the jitter: the same seed and message index give the same delays.
    public var seed: UInt64

    public init(maxAttempts: Int = 4, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30),
                jitter: Double = 0.5, maxRetryAfter: Duration = .seconds(60), seed: UInt64 = 0x5EED) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = min(max(jitter, 0), 1)
        self.maxRetryAfter = maxRetryAfter
        self.seed = seed
    }

    /// No retries at all.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// What to do after attempt number `attempt` (1-based) was answered with `retryability`.
    public enum Decision: Sendable, Hashable {
        case stop
        case retry(after: Duration)
        /// Renew the credential, then retry at once.
        case renewCredentialAndRetry
    }

    /// - Parameters:
    ///   - renewedAlready: a credential was already renewed for this push (renewal is once).
    ///   - retryAfter: the server's `Retry-After`, if any.
    public func decide(_ retryability: Retryability, attempt: Int, renewedAlready: Bool,
                       retryAfter: Duration?, random: inout SeededRandom) -> Decision {
        guard attempt < maxAttempts else { return .stop }
        switch retryability {
        case .never:
            return .stop
        case .renewCredentialOnce:
            return renewedAlready ? .stop : .renewCredentialAndRetry
        case .withBackoff, .afterDelay:
            if let retryAfter, retryAfter > maxRetryAfter { return .stop }
            return .retry(after: delay(afterAttempt: attempt, retryAfter: retryAfter, random: &random))
        }
    }

    /// Backoff before the retry that follows attempt `attempt`: base·2^(attempt−1), capped, plus
    /// jitter; never shorter than the server's `Retry-After`.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, random: inout SeededRandom) -> Duration {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let base = min(baseDelay.inSeconds * pow(2, exponent), maxDelay.inSeconds)
        let withJitter = base + base * jitter * random.unit()
        let backoff = Duration.milliseconds(Int64((withJitter * 1000).rounded()))
        guard let retryAfter else { return backoff }
        return max(backoff, retryAfter)
    }

    /// A jitter stream for one message, independent of every other message's.
    public func random(forMessage index: UInt64) -> SeededRandom {
        SeededRandom.derived(seed: seed, index: index)
    }
}

extension RetryPolicy {
    /// Runs `attempt` until it succeeds, is not retryable, or attempts run out. An attempt
    /// that got an accepted answer returns `.never` and is never repeated, so a push is sent
    /// twice only when no answer came back for the first try.
    /// - Parameters:
    ///   - messageIndex: picks this message's jitter stream.
    ///   - renewCredential: mints a fresh credential; false when that failed (then stop).
    ///   - attempt: runs on the caller's executor, like `execute` itself.
    public nonisolated(nonsending) func execute<Result: Sendable>(
        messageIndex: UInt64, sleeper: any RetrySleeper,
        renewCredential: () async -> Bool,
        attempt: nonisolated(nonsending) (_ number: Int) async -> RetryStep<Result>
    ) async -> (result: Result, attempts: Int) {
        var random = self.random(forMessage: messageIndex)
        var renewed = false
        var number = 1
        while true {
            let step = await attempt(number)
            switch decide(step.retryability, attempt: number, renewedAlready: renewed,
                          retryAfter: step.retryAfter, random: &random) {
            case .stop:
                return (step.result, number)
            case .renewCredentialAndRetry:
                renewed = true
                guard await renewCredential() else { return (step.result, number) }
            case .retry(let delay):
                do { try await sleeper.sleep(for: delay) } catch { return (step.result, number) }
            }
            number += 1
        }
    }
}
