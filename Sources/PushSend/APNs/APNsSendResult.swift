import Foundation
import PushCore
import PushHTTP

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
    /// The apns-id the request carried ("" when none was sent: the answer's is in the outcome).
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
            r.recordFailure(error)
        case .notSent(let why, let reason):
            r.recordNotSent(why, reason: reason)
        }
        return r
    }
}
