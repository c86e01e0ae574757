import Foundation
import PushHTTP

/// The outcome of one push, whichever provider carried it: what the bulk engine counts,
/// the JSONL writer writes, and the history stores.
public struct DeliveryReport: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The provider accepted the push (APNs 200, FCM 200).
        case accepted
        /// The provider answered with an error.
        case rejected
        /// No answer: the connection or TLS failed, or the request timed out, after retries.
        case failed
        /// Refused before sending: the token or payload cannot be sent (e.g. an FCM token given
        /// to APNs). Nothing went on the wire.
        case invalid
    }

    public var provider: PushProvider
    /// Device token, or the FCM topic / condition the message went to.
    public var target: String
    /// APNs: the apns-id (sent, or echoed back). FCM: the message name on success.
    public var id: String?
    /// HTTP status of the last answer; nil when none came.
    public var status: Int?
    public var outcome: Outcome
    /// APNs reason, FCM errorCode (else RPC status), or a short failure name; nil on success.
    public var reason: String?
    /// A human sentence: the FCM message, the transport error, why the input was refused.
    public var detail: String?
    /// APNs 410: when the token was last valid (ms since the epoch).
    public var timestamp: Int64?
    /// Attempts made (0 for `.invalid`).
    public var attempts: Int
    /// Time from the first attempt to the last answer.
    public var latency: Duration
    public var sentAt: Date
    /// The token is dead and should be removed from the audience.
    public var prune: Bool
    /// What `target` is: FCM's target field (`fid`, `token`, `topic`, `condition`); nil for an
    /// APNs device token.
    public var targetKind: String?

    public init(provider: PushProvider, target: String, id: String? = nil, status: Int? = nil, outcome: Outcome,
                reason: String? = nil, detail: String? = nil, timestamp: Int64? = nil, attempts: Int = 1,
                latency: Duration = .zero, sentAt: Date, prune: Bool = false) {
        self.provider = provider
        self.target = target
        self.id = id
        self.status = status
        self.outcome = outcome
        self.reason = reason
        self.detail = detail
        self.timestamp = timestamp
        self.attempts = attempts
        self.latency = latency
        self.sentAt = sentAt
        self.prune = prune
    }

    public var isAccepted: Bool { outcome == .accepted }
}

extension DeliveryReport {
    /// No answer after the allowed attempts: `.failed`, with the transport error's short name
    /// as the reason and its sentence as the detail. The same for every provider.
    mutating func recordFailure(_ error: HTTPClientError) {
        outcome = .failed
        reason = error.failureName
        detail = error.description
    }

    /// Refused before sending: `.invalid`, `reason` the short name, `why` the sentence. Never
    /// sent, so the provider never said the token is dead: never pruned (a token of the wrong
    /// kind, an FCM token in an APNs list, may be alive and must not reach --prune-file).
    mutating func recordNotSent(_ why: String, reason: String) {
        outcome = .invalid
        self.reason = reason
        detail = why
        prune = false
    }
}
