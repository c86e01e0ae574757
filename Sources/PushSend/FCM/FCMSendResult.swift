import Foundation
import PushCore
import PushHTTP
import PushAuth

/// The answer to one FCM message, after retries.
public struct FCMSendResult: Sendable {
    public enum Outcome: Sendable {
        /// `projects/<p>/messages/<id>`.
        case accepted(name: String)
        case rejected(FCMError)
        case failed(HTTPClientError)
        case notSent(String, reason: String)
        /// The access token could not be had for a transient reason (its endpoint down or 5xx),
        /// through every attempt.
        case noAccessToken(OAuthError)
    }
    public var target: FCMTarget
    public var outcome: Outcome
    public var attempts: Int
    public var latency: Duration
    public var sentAt: Date

    public var isAccepted: Bool { if case .accepted = outcome { return true } else { return false } }

    public var report: DeliveryReport {
        var r = DeliveryReport(provider: .fcm, target: target.value, outcome: .accepted, attempts: attempts,
                               latency: latency, sentAt: sentAt)
        r.targetKind = target.fieldName
        switch outcome {
        case .accepted(let name):
            r.id = name
            r.status = 200
        case .rejected(let e):
            r.outcome = .rejected
            r.status = e.httpStatus
            r.reason = e.reasonName
            r.detail = e.message
            r.prune = e.prunesToken
        case .failed(let error):
            r.recordFailure(error)
        case .notSent(let why, let reason):
            r.recordNotSent(why, reason: reason)
        case .noAccessToken(let error):
            r.outcome = .failed
            r.reason = "AccessTokenError"
            r.detail = error.description
        }
        return r
    }
}
